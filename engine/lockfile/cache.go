package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/state"
)

// The lock of a large pipeline is megabytes of HCL, and parsing it costs
// more than everything else a plan does per node. LoadCached keeps the
// parsed form in the state folder's cache, by the digest of the file's
// bytes: an edit, a checkout or a hand-broken file is a miss and is parsed
// (and reported) as usual. A missing or unreadable cache is a miss too.

type cached struct {
	Digest [32]byte
	File   *File
}

// LoadCached is Load, through a cache file in cacheDir.
func LoadCached(path, cacheDir string) (*File, *hcl.File, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil, nil
	}
	if err != nil {
		return Load(path) // reports the error
	}
	digest := sha256.Sum256(src)
	cachePath := filepath.Join(cacheDir, "lock")
	if b, err := os.ReadFile(cachePath); err == nil {
		var c cached
		if gob.NewDecoder(bytes.NewReader(b)).Decode(&c) == nil && c.Digest == digest && c.File != nil {
			return normalise(c.File), nil, nil
		}
	}
	f, hf, diags := Parse(src, path)
	if diags.HasErrors() {
		return f, hf, diags
	}
	var buf bytes.Buffer
	// cacheDir is inside the state folder: made with state.MakeDir, it
	// ignores itself in git.
	if gob.NewEncoder(&buf).Encode(cached{Digest: digest, File: f}) == nil && state.MakeDir(filepath.Dir(cacheDir)) == nil && os.MkdirAll(cacheDir, 0o755) == nil {
		_ = state.ReplaceFile(cachePath, buf.Bytes(), 0o644)
	}
	return f, hf, diags
}

// normalise restores the empty maps gob leaves out.
func normalise(f *File) *File {
	if f.Pins == nil {
		f.Pins = map[string]map[string]string{}
	}
	if f.Nodes == nil {
		f.Nodes = map[string]Node{}
	}
	return f
}
