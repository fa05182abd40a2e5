package plan

import (
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
)

// StaticLines are the key lines of a node that do not depend on what other
// nodes produce: its kind, attributes, input and key-file digests and the
// environment variables it reads, one dep line per upstream node (its
// digest "(known after apply)"), and two kinds of lines only static lines
// have, for what the key holds through the configuration: "pin NAME VALUE"
// for each pin of kiln.lock.hcl that applies to the node, and "read PATH
// SEEN" for each file its expressions read (file, yamldecode(file(...)),
// templatefile, filesha256: the content digest; fileexists: exists=BOOL).
// Comparing them between two versions of a pipeline tells which nodes a
// change touches directly, without running anything. Attributes that are
// only known after an upstream node runs are written as "(known after
// apply)".
func StaticLines(p *config.Pipeline, n *config.Node, vals config.Values, stat *hash.StatCache, pins map[string]string) ([]hash.Line, hcl.Diagnostics) {
	ev, diags := p.Evaluate(n, vals, SelfOutPlaceholder)
	if diags.HasErrors() {
		return nil, diags
	}
	k := n.Block.Kind
	in := keyInputs{kind: k.Name(), version: k.Version(), config: ev.Config, ext: ev.Extensions, env: ev.EnvRead,
		paths: pathNormaliser{state: p.StateDir, root: p.Root}, unknownOK: true}
	files, err := ResolveInputs(p.Root, KeyedInputs(p.StateDir, ev.Inputs))
	if err != nil {
		return nil, hcl.Diagnostics{inputsError(n, "Cannot resolve inputs of "+n.Addr.String(), err)}
	}
	for _, f := range files {
		dg, err := inputDigest(p.Root, f, stat)
		if err != nil {
			return nil, hcl.Diagnostics{inputsError(n, "Cannot hash an input of "+n.Addr.String(), err)}
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
	in.run = runLines(p, n)
	key, _, err := keyLines(in)
	if err != nil {
		return nil, hcl.Diagnostics{nodeError(n, "Cannot encode "+n.Addr.String(), err.Error())}
	}
	if pk, ok := k.(kind.Pinner); ok && len(pins) > 0 && ev.Config.IsWhollyKnown() {
		pinned, err := pk.Pin(node, pins)
		if err != nil {
			return nil, hcl.Diagnostics{nodeError(n, "Invalid pin in kiln.lock.hcl for "+n.Addr.String(), err.Error())}
		}
		if !pinned.RawEquals(ev.Config) {
			for _, name := range slices.Sorted(maps.Keys(pins)) {
				key.AddLine(hash.Line{Label: "pin", Subject: name, Value: pins[name]})
			}
		}
	}
	for _, r := range ev.FilesRead {
		if within(p.StateDir, r.Path) {
			continue // an upstream's output: its digest is in the key
		}
		seen := r.Seen
		if r.What == config.ReadExists {
			seen = "exists=" + seen
		}
		key.AddLine(hash.Line{Label: "read", Subject: relTo(p.Root, r.Path), Value: seen})
	}
	return key.Lines(), nil
}
