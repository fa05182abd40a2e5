package fetch

import (
	"context"
	"fmt"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

var (
	_ kind.Pinner      = (*Fetch)(nil)
	_ kind.PinResolver = (*Fetch)(nil)
	_ kind.Unpinned    = (*Fetch)(nil)
)

// lockedChecksumAttr carries a checksum from the lock file into the
// configuration. It is not part of Spec, so no block can set it; a separate
// attribute (rather than checksum itself) lets a mismatch say that the
// download changed since it was locked and how to accept it.
const lockedChecksumAttr = "locked_checksum"

// Pins are, for a url download without a checksum, the checksum of the
// first download and the url it came from; for a huggingface block whose
// revision is a branch or tag, the commit it named, with the ref and the
// repo ("datasets/ORG/NAME") it was resolved from. The endpoint is not part
// of the pin: a mirror of the hub serves the same commits, so switching to
// one keeps the pinned data.
func (f *Fetch) Pins(n *kind.Node, r *kind.Result) map[string]string {
	c, err := decodeConfig(n.Config)
	if err != nil || r == nil {
		return nil
	}
	if c.hf != nil {
		if c.hf.ref == "" || !commitRE.MatchString(r.Attrs["revision"]) {
			return nil
		}
		return map[string]string{"revision": r.Attrs["revision"], "ref": c.hf.ref, "repo": c.hf.pinRepo()}
	}
	if (c.checksum != "" && !c.locked) || r.Attrs["checksum"] == "" {
		return nil
	}
	return map[string]string{"checksum": r.Attrs["checksum"], "url": c.url}
}

// pinRepo names the repo in a pin: its kind and ORG/NAME, as in the hub's
// API paths.
func (h *hfConfig) pinRepo() string { return h.kindName() + "s/" + h.repo() }

// Pin makes a url download without a checksum verify against the locked
// one. A pin of another url than the configuration's is ignored.
func (f *Fetch) Pin(n *kind.Node, pins map[string]string) (cty.Value, error) {
	cfg := n.Config
	if cfg.IsNull() || !cfg.IsKnown() || !cfg.Type().IsObjectType() {
		return cfg, nil
	}
	if hf := attr.Get(cfg, "huggingface"); !hf.IsNull() {
		return pinRevision(n, cfg, hf, pins)
	}
	u := attr.Get(cfg, "url")
	if sum := attr.Get(cfg, "checksum"); !sum.IsKnown() || !sum.IsNull() {
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

// pinRevision sets the huggingface block's revision to the locked commit
// when the block names the branch or tag and repo the pin was resolved from.
func pinRevision(n *kind.Node, cfg, hf cty.Value, pins map[string]string) (cty.Value, error) {
	rev := attr.Get(hf, "revision")
	if !hf.IsWhollyKnown() || rev.IsNull() || commitRE.MatchString(rev.AsString()) || pins["revision"] == "" {
		return cfg, nil
	}
	h := &hfConfig{revision: rev.AsString()}
	repo, _ := attr.KnownString(hf, "repo")
	hubKind, _ := attr.KnownString(hf, "kind")
	org, name, _ := strings.Cut(repo, "/")
	h.org, h.name, h.dataset = org, name, hubKind == "dataset"
	if h.checkRevision() != nil || pins["ref"] != h.ref || pins["repo"] != h.pinRepo() {
		return cfg, nil
	}
	if !commitRE.MatchString(pins["revision"]) {
		return cfg, fmt.Errorf("the locked revision of %s, %q, is not a 40-hex commit", n.Addr, pins["revision"])
	}
	hv, hm := hf.Unmark()
	hattrs := hv.AsValueMap()
	hattrs["revision"] = cty.StringVal(pins["revision"])
	v, marks := cfg.Unmark()
	attrs := v.AsValueMap()
	attrs["huggingface"] = cty.ObjectVal(hattrs).WithMarks(hm)
	return cty.ObjectVal(attrs).WithMarks(marks), nil
}

// ResolvePins asks the hub which commit a huggingface revision that is a
// branch or tag names (GET {endpoint}/api/{models|datasets}/ORG/NAME/
// revision/REF). It cannot learn a download's checksum without downloading:
// it says so for a url download without one, and has nothing to resolve
// otherwise.
func (f *Fetch) ResolvePins(ctx context.Context, n *kind.Node, env []string) (map[string]string, error) {
	c, err := decodeConfig(n.Config)
	if err != nil {
		return nil, err
	}
	if h := c.hf; h != nil {
		if h.ref == "" {
			return nil, nil
		}
		headers := map[string]string{}
		for k, v := range c.headers {
			headers[k] = v
		}
		token := lookupEnv(env, h.tokenEnv)
		if token != "" {
			headers["Authorization"] = "Bearer " + token
		}
		sha, err := f.resolveHubRef(ctx, h, request{url: h.revisionURL(), headers: headers, secret: token, stall: c.stallTimeout})
		if err != nil {
			return nil, err
		}
		return map[string]string{"revision": sha, "ref": h.ref, "repo": h.pinRepo()}, nil
	}
	if c.checksum != "" {
		return nil, nil
	}
	return nil, fmt.Errorf("%w: a download's checksum is known only once it is downloaded; kiln apply records the one it first sees (or set checksum in the block)", kind.ErrPinNeedsBuild)
}

// Unpinned names what the configuration leaves open once the lock's pins
// are applied: a huggingface branch or tag, or a download's checksum.
func (f *Fetch) Unpinned(n *kind.Node) string {
	c, err := decodeConfig(n.Config)
	switch {
	case err != nil:
		return ""
	case c.hf != nil && c.hf.ref != "":
		return fmt.Sprintf("revision %s of %s %s is a branch or tag: kiln lock (or this apply) resolves it to a commit and pins it in kiln.lock.hcl", c.hf.ref, c.hf.kindName(), c.hf.repo())
	case c.hf == nil && c.checksum == "":
		return "no checksum: this apply records the download's in kiln.lock.hcl"
	}
	return ""
}
