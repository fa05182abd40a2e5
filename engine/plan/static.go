package plan

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
)

// StaticLines are the key lines of a node that do not depend on what other
// nodes produce: its kind, attributes, input and key-file digests and the
// environment variables it reads, plus one "dep ADDR" line per upstream
// node without a digest. Comparing them between two versions of a pipeline
// tells which nodes a change touches directly, without running anything.
// Attributes that are only known after an upstream node runs are written as
// "(known after apply)".
func StaticLines(p *config.Pipeline, n *config.Node, vals config.Values, stat *hash.StatCache) ([]string, hcl.Diagnostics) {
	ev, diags := p.Evaluate(n, vals, SelfOutPlaceholder)
	if diags.HasErrors() {
		return nil, diags
	}
	k := n.Block.Kind
	in := keyInputs{kind: k.Name(), version: k.Version(), config: ev.Config, env: ev.EnvRead,
		paths: pathNormaliser{state: p.StateDir, root: p.Root}, unknownOK: true}
	files, err := ResolveInputs(p.Root, ev.Inputs)
	if err != nil {
		return nil, hcl.Diagnostics{nodeError(n, "Cannot resolve inputs of "+n.Addr.String(), err.Error())}
	}
	for _, f := range files {
		dg, err := digestPath(f, stat)
		if err != nil {
			return nil, hcl.Diagnostics{nodeError(n, "Cannot hash an input of "+n.Addr.String(), err.Error())}
		}
		in.inputs = append(in.inputs, [2]string{relTo(p.Root, f), dg})
	}
	node := &kind.Node{Addr: n.Addr, Config: ev.Config, Root: p.Root, Out: p.OutPath(n.Addr), State: p.StateDir}
	if kf, ok := k.(kind.KeyFiles); ok && ev.Config.IsWhollyKnown() {
		for _, f := range kf.KeyFiles(node) {
			abs := absUnder(p.Root, f)
			if within(p.StateDir, abs) {
				continue
			}
			dg, err := digestPath(abs, stat)
			if err != nil {
				dg = "(missing)"
			}
			in.files = append(in.files, [2]string{relTo(p.Root, abs), dg})
		}
	}
	for _, d := range n.Deps {
		in.deps = append(in.deps, upstream{addr: d.String(), out: p.OutPath(d)})
	}
	key, _, err := keyLines(in)
	if err != nil {
		return nil, hcl.Diagnostics{nodeError(n, "Cannot encode "+n.Addr.String(), err.Error())}
	}
	return key.Lines(), nil
}
