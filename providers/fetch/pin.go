package fetch

import (
	"context"
	"fmt"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

var (
	_ kind.Pinner      = (*Fetch)(nil)
	_ kind.PinResolver = (*Fetch)(nil)
)

// lockedChecksumAttr carries a checksum from the lock file into the
// configuration. It is not part of Spec, so no block can set it; a separate
// attribute (rather than checksum itself) lets a mismatch say that the
// download changed since it was locked and how to accept it.
const lockedChecksumAttr = "locked_checksum"

// Pins are, for a url download without a checksum, the checksum of the
// first download and the url it came from. A huggingface block is pinned by
// its required revision and has no pins.
func (f *Fetch) Pins(n *kind.Node, r *kind.Result) map[string]string {
	c, err := decodeConfig(n.Config)
	if err != nil || c.hf != nil || (c.checksum != "" && !c.locked) || r == nil || r.Attrs["checksum"] == "" {
		return nil
	}
	return map[string]string{"checksum": r.Attrs["checksum"], "url": c.url}
}

// Pin makes a url download without a checksum verify against the locked
// one. A pin of another url than the configuration's is ignored.
func (f *Fetch) Pin(n *kind.Node, pins map[string]string) (cty.Value, error) {
	cfg := n.Config
	if cfg.IsNull() || !cfg.IsKnown() || !cfg.Type().IsObjectType() {
		return cfg, nil
	}
	u := attr(cfg, "url")
	if sum := attr(cfg, "checksum"); !sum.IsKnown() || !sum.IsNull() || !attr(cfg, "huggingface").IsNull() {
		return cfg, nil
	}
	if !u.IsKnown() || u.IsNull() || pins["checksum"] == "" || pins["url"] != u.AsString() {
		return cfg, nil
	}
	if _, err := parseChecksum(pins["checksum"]); err != nil {
		return cfg, fmt.Errorf("the locked checksum of %s: %w", n.Addr, err)
	}
	v, marks := cfg.Unmark()
	attrs := v.AsValueMap()
	attrs[lockedChecksumAttr] = cty.StringVal(pins["checksum"])
	return cty.ObjectVal(attrs).WithMarks(marks), nil
}

// ResolvePins cannot learn a checksum without downloading: it says so for a
// url download without one, and has nothing to resolve otherwise.
func (f *Fetch) ResolvePins(_ context.Context, n *kind.Node, _ []string) (map[string]string, error) {
	c, err := decodeConfig(n.Config)
	if err != nil {
		return nil, err
	}
	if c.hf != nil || c.checksum != "" {
		return nil, nil
	}
	return nil, fmt.Errorf("%w: a download's checksum is known only once it is downloaded; kiln apply records the one it first sees (or set checksum in the block)", kind.ErrPinNeedsBuild)
}
