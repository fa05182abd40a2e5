package fetch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// buildPlain downloads c.url, verifies it and moves it (or unpacks it) into
// b.Dir.
func (f *Fetch) buildPlain(ctx context.Context, b *kind.Build, c *config) (*kind.Result, error) {
	p, err := openPartial(ctx, b.State, c.url)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", c.url, err)
	}
	defer p.release()

	fmt.Fprintf(b.Log, "fetching %s\n", c.url)
	_, err = f.download(ctx, b, p, request{
		url:     c.url,
		headers: c.headers,
		limit:   c.maxBytes,
		stall:   c.stallTimeout,
		label:   c.filename,
	})
	if err != nil {
		return nil, err
	}
	got, err := fileSHA256(p.path)
	if err != nil {
		return nil, fmt.Errorf("verify the download of %s: %w", c.url, err)
	}
	if c.checksum != "" {
		want, _ := parseChecksum(c.checksum) // checked when decoding
		if got != want {
			p.discard()
			if c.locked {
				return nil, fmt.Errorf("checksum mismatch for %s: expected sha256:%s (locked in kiln.lock.hcl), got sha256:%s; the download changed since it was locked; run kiln lock -update %s to accept it", c.url, want, got, b.Addr)
			}
			return nil, fmt.Errorf("checksum mismatch for %s: expected sha256:%s, got sha256:%s; the download was deleted — if the file changed upstream on purpose, update checksum", c.url, want, got)
		}
	} else {
		warnUnpinned(b, c.url, got)
	}

	exported := filepath.Join(b.Out, c.filename)
	if c.extract {
		format, _ := archiveFormat(c.filename) // checked when decoding
		lim := extractLimits{maxBytes: c.maxBytes, maxFiles: f.maxFiles(), setting: fmt.Sprintf("max_bytes = %d, set on %s", c.maxBytes, b.Addr)}
		if lim.maxBytes == 0 {
			lim.maxBytes, lim.setting = f.maxExtractBytes(p.path, b.Addr.String())
		}
		if err := extractArchive(p.path, format, b.Dir, lim, b.Log); err != nil {
			if c.checksum == "" {
				p.discard() // unverified: fetch it again rather than trust it
			} else {
				p.refuse(err)
			}
			return nil, fmt.Errorf("extract %s (from %s): %w", c.filename, c.url, err)
		}
		p.discard()
		exported = b.Out
	} else if err := p.publish(filepath.Join(b.Dir, c.filename)); err != nil {
		return nil, err
	}

	sum := "sha256:" + got
	return &kind.Result{
		Attrs: map[string]string{"checksum": sum},
		Exports: map[string]cty.Value{
			"path":     cty.StringVal(exported),
			"checksum": cty.StringVal(sum),
		},
	}, nil
}

// warnUnpinned says, where nobody can miss it, that a download was not
// verified and which checksum pins it.
func warnUnpinned(b *kind.Build, url, sum string) {
	fmt.Fprintf(b.Log, "WARNING: %s has no checksum: the download of %s was NOT verified.\n", b.Addr, url)
	fmt.Fprintf(b.Log, "WARNING: it has sha256:%s; to pin it, add to the block:\n", sum)
	fmt.Fprintf(b.Log, "WARNING:     checksum = \"sha256:%s\"\n", sum)
}

// maxExtractBytes is how much the archive at path may unpack to when the
// node sets no max_bytes, and how the limit came about, for the error.
func (f *Fetch) maxExtractBytes(path, addr string) (int64, string) {
	advice := "if the archive is right, set max_bytes in " + addr + " to what it unpacks to"
	if f.MaxExtractBytes > 0 {
		return f.MaxExtractBytes, fmt.Sprintf("kiln's limit for archives without max_bytes; %s", advice)
	}
	floor := f.ExtractFloor
	if floor <= 0 {
		floor = DefaultExtractFloor
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	return max(DefaultExtractRatio*size, floor), fmt.Sprintf("the default limit: %d times the %d-byte download, at least %d bytes; %s", DefaultExtractRatio, size, floor, advice)
}
