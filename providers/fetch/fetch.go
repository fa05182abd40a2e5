package fetch

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

var (
	_ kind.Kind             = (*Fetch)(nil)
	_ kind.ProgressReporter = (*Fetch)(nil)
)

// Defaults of the Fetch fields left zero.
const (
	DefaultProgressInterval = time.Second
	DefaultMaxFiles         = 1_000_000
	// An archive of a node without max_bytes unpacks to at most
	// DefaultExtractRatio times its own size, or DefaultExtractFloor,
	// whichever is larger: a real data set fits, a compression bomb does
	// not fill the disk.
	DefaultExtractRatio = 100
	DefaultExtractFloor = 4 << 30 // 4 GiB
)

// Fetch is the fetch node kind. The zero value is ready to use; New returns one.
type Fetch struct {
	// Progress, when set, is called with the bytes done and the total (-1
	// when unknown) of the running download, at most every ProgressInterval
	// and once when a file is complete. addr is the node's address.
	Progress func(addr string, done, total int64)
	// Client makes the HTTP requests. nil means a client without a total
	// timeout that follows up to 10 redirects; stall_timeout bounds idleness.
	Client *http.Client
	// ProgressInterval is the least time between two Progress calls.
	ProgressInterval time.Duration
	// MaxFiles bounds the entries of an extracted archive.
	MaxFiles int
	// MaxExtractBytes bounds the bytes an archive may unpack to when the
	// node sets no max_bytes; zero means DefaultExtractRatio times the
	// archive's size, at least ExtractFloor.
	MaxExtractBytes int64
	// ExtractFloor is the least of that default bound; zero means
	// DefaultExtractFloor.
	ExtractFloor int64
}

// New returns the fetch kind with default settings.
func New() kind.Kind { return &Fetch{} }

// Name is the block type.
func (f *Fetch) Name() string { return "fetch" }

// Version enters every key of a fetch node.
func (f *Fetch) Version() string { return "fetch/1" }

// Spec is the schema of a fetch block: a url download or a huggingface
// block (see Schema).
func (f *Fetch) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

// Shareable: a download's files are the same wherever they were fetched
// (the checksum or revision is in the key).
func (f *Fetch) Shareable() bool { return true }

// ReportProgress sets Progress (kind.ProgressReporter).
func (f *Fetch) ReportProgress(p func(addr string, done, total int64)) { f.Progress = p }

// Exports are path (the downloaded file, the extracted folder, or ORG/NAME
// of a Hugging Face repo under out) and checksum (the pinned checksum, or
// unknown until the first download records it).
func (f *Fetch) Exports(n *kind.Node) map[string]cty.Value {
	out := map[string]cty.Value{
		"path":     cty.UnknownVal(cty.String),
		"checksum": cty.UnknownVal(cty.String),
	}
	cfg := n.Config
	if cfg.IsNull() || !cfg.IsKnown() || !cfg.Type().IsObjectType() {
		return out
	}
	if hf := attr.Get(cfg, "huggingface"); !hf.IsNull() {
		if repo := attr.Get(hf, "repo"); repo.IsKnown() && !repo.IsNull() {
			out["path"] = cty.StringVal(path.Join(n.Out, repo.AsString()))
		}
		return out
	}
	for _, name := range []string{"checksum", lockedChecksumAttr} {
		if sum := attr.Get(cfg, name); sum.IsKnown() && !sum.IsNull() {
			out["checksum"] = sum
			break
		}
	}
	if p, ok := plainPath(n); ok {
		out["path"] = cty.StringVal(p)
	}
	return out
}

// plainPath is the exported path of a url download when the configuration
// already says it: out itself when extracting, out/filename otherwise.
func plainPath(n *kind.Node) (string, bool) {
	ex, name := attr.Get(n.Config, "extract"), attr.Get(n.Config, "filename")
	if !ex.IsKnown() || !name.IsKnown() {
		return "", false
	}
	if !ex.IsNull() && ex.True() {
		return n.Out, true
	}
	if name.IsNull() {
		u := attr.Get(n.Config, "url")
		if !u.IsKnown() || u.IsNull() {
			return "", false
		}
		base, err := defaultFilename(u.AsString())
		if err != nil {
			return "", false
		}
		return path.Join(n.Out, base), true
	}
	return path.Join(n.Out, name.AsString()), true
}

// Build downloads the node's file or Hugging Face files into b.Dir.
func (f *Fetch) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	if b.State == "" {
		return nil, fmt.Errorf("fetch %s: no state folder given for partial downloads; run it through kiln apply", b.Addr)
	}
	c, err := decodeConfig(b.Config)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", b.Addr, err)
	}
	if c.hf != nil {
		return f.buildHuggingFace(ctx, b, c)
	}
	return f.buildPlain(ctx, b, c)
}

func (f *Fetch) httpClient() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	return defaultClient
}

// defaultClient has no total timeout: a large download may take hours, and
// the stall timeout is what ends a dead transfer.
var defaultClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

func (f *Fetch) progressInterval() time.Duration {
	if f.ProgressInterval > 0 {
		return f.ProgressInterval
	}
	return DefaultProgressInterval
}

func (f *Fetch) maxFiles() int {
	if f.MaxFiles > 0 {
		return f.MaxFiles
	}
	return DefaultMaxFiles
}
