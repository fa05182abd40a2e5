package host

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// Default places of the facts on an Ascend host; "<arch>" is the machine's
// architecture.
const (
	DefaultNPUSmi       = "npu-smi"
	DefaultDriverInfo   = "/usr/local/Ascend/driver/version.info"
	DefaultFirmwareInfo = "/usr/local/Ascend/firmware/version.info"
	DefaultCANNInfo     = "/usr/local/Ascend/ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info"
)

// Host is the host node kind.
type Host struct {
	// Grace is how long a cancelled npu-smi has between SIGTERM and SIGKILL.
	Grace time.Duration
	// ProbeTimeout bounds one npu-smi run.
	ProbeTimeout time.Duration
	// NPUSmiDirs are searched for the default npu-smi when it is not on PATH.
	NPUSmiDirs []string

	mu    sync.Mutex
	cache map[sources]*facts
}

var (
	_ kind.Kind           = (*Host)(nil)
	_ kind.Prober         = (*Host)(nil)
	_ kind.DeviceReporter = (*Host)(nil)
)

// New returns the host kind with a 5 s grace period, a 30 s npu-smi timeout
// and the usual npu-smi folders outside PATH.
func New() kind.Kind {
	return &Host{
		Grace:        5 * time.Second,
		ProbeTimeout: 30 * time.Second,
		NPUSmiDirs:   []string{"/usr/local/bin", "/usr/local/sbin"},
	}
}

// Name is the block type.
func (h *Host) Name() string { return "host" }

// Version enters every host key.
func (h *Host) Version() string { return "host/1" }

// Spec is the schema of a host block.
func (h *Host) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

// Exports are the facts, known at plan time.
func (h *Host) Exports(n *kind.Node) map[string]cty.Value {
	src, err := decodeSources(n.Config, n.Root)
	if err != nil {
		return unknownExports()
	}
	h.mu.Lock()
	f := h.cache[src]
	h.mu.Unlock()
	if f == nil {
		f = h.read(context.Background(), src)
	}
	return f.exports()
}

// read gathers the facts named by src and caches them.
func (h *Host) read(ctx context.Context, src sources) *facts {
	if h.ProbeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.ProbeTimeout)
		defer cancel()
	}
	f := h.gather(ctx, src)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cache == nil {
		h.cache = map[sources]*facts{}
	}
	h.cache[src] = f
	return f
}

func unknownExports() map[string]cty.Value {
	return map[string]cty.Value{
		"npus":     cty.UnknownVal(cty.Number),
		"cann":     cty.UnknownVal(cty.String),
		"driver":   cty.UnknownVal(cty.String),
		"firmware": cty.UnknownVal(cty.String),
		"arch":     cty.UnknownVal(cty.String),
	}
}

// errUnknown says the configuration still holds values that are only known
// once upstream nodes are built.
var errUnknown = errors.New("configuration not known until upstream nodes are built")

// label is how messages name the node: "host a2".
func label(a addr.Node) string {
	return "host " + a.Name + a.Key.String()
}

func resolve(root, p string) string {
	if filepath.IsAbs(p) || root == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}
