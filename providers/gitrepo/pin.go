package gitrepo

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

var (
	_ kind.Pinner      = (*Repo)(nil)
	_ kind.PinResolver = (*Repo)(nil)
	_ kind.Unpinned    = (*Repo)(nil)
)

// Unpinned names a ref the lock does not pin yet.
func (r *Repo) Unpinned(n *kind.Node) string {
	c, err := decodeConfig(n.Config)
	if err != nil || c.Ref == "" {
		return ""
	}
	return fmt.Sprintf("ref %s of %s: kiln lock (or this apply) resolves it to a commit and pins it in kiln.lock.hcl", c.Ref, c.URL)
}

// Pins are, for a node that names a ref and no commit, the commit the build
// checked out, with the ref and url it was resolved from.
func (r *Repo) Pins(n *kind.Node, res *kind.Result) map[string]string {
	c, err := decodeConfig(n.Config)
	if err != nil || c.Ref == "" || res == nil || res.Attrs["commit"] == "" {
		return nil
	}
	return map[string]string{"commit": res.Attrs["commit"], "ref": c.Ref, "url": c.URL}
}

// Pin sets commit to the locked one and removes ref, so the key names the
// commit and a moving branch changes nothing until the lock is updated. A
// pin resolved from another ref or url than the configuration's is ignored.
func (r *Repo) Pin(n *kind.Node, pins map[string]string) (cty.Value, error) {
	cfg := n.Config
	ref, hasRef := attr.KnownString(cfg, "ref")
	url, hasURL := attr.KnownString(cfg, "url")
	if _, hasCommit := attr.KnownString(cfg, "commit"); hasCommit || !hasRef || !hasURL {
		return cfg, nil
	}
	if pins["commit"] == "" || pins["ref"] != ref || pins["url"] != url {
		return cfg, nil
	}
	sha, err := checkCommit(pins["commit"])
	if err != nil {
		return cfg, fmt.Errorf("the locked commit of %s: %w", n.Addr, err)
	}
	return withAttrs(cfg, map[string]cty.Value{"commit": cty.StringVal(sha), "ref": cty.NullVal(cty.String)}), nil
}

// ResolvePins asks the remote which commit the ref names (git ls-remote),
// without checking anything out.
func (r *Repo) ResolvePins(ctx context.Context, n *kind.Node, env []string) (map[string]string, error) {
	c, err := decodeConfig(n.Config)
	if err != nil {
		return nil, err
	}
	if c.Ref == "" {
		return nil, nil
	}
	g, err := r.command(env, io.Discard)
	if err != nil {
		return nil, err
	}
	// ls-remote runs in an empty folder, so no enclosing repository's
	// configuration applies.
	dir, err := os.MkdirTemp("", "kiln-ls-remote-")
	if err != nil {
		return nil, fmt.Errorf("resolve ref %s of %s: %w", c.Ref, c.URL, err)
	}
	defer os.RemoveAll(dir)
	sha, err := resolveRef(ctx, g, dir, resolveURL(n.Root, c.URL), c.Ref)
	if err != nil {
		return nil, err
	}
	return map[string]string{"commit": sha, "ref": c.Ref, "url": c.URL}, nil
}

// withAttrs returns the object cfg with some attributes replaced, keeping
// its marks.
func withAttrs(cfg cty.Value, set map[string]cty.Value) cty.Value {
	v, marks := cfg.Unmark()
	attrs := v.AsValueMap()
	if attrs == nil {
		attrs = map[string]cty.Value{}
	}
	for k, x := range set {
		attrs[k] = x
	}
	return cty.ObjectVal(attrs).WithMarks(marks)
}
