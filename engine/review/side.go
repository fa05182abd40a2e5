package review

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/zclconf/go-cty/cty"
)

// side is one version of the pipeline, loaded and keyed without running
// anything.
type side struct {
	rev      Revision
	path     string // the pipeline file or folder loaded, absolute
	pipeline *config.Pipeline
	dag      *plan.DAG
	pins     map[string]map[string]string  // kiln.lock.hcl's pins at this version
	lines    map[addr.Node][]hash.Line     // static key lines per node
	failed   map[addr.Node]hcl.Diagnostics // nodes whose lines could not be made
	rename   func(string) string           // paths of a materialised tree to "REV:path"
}

// LoadError is a pipeline that does not load at one revision. Files holds
// the sources of the diagnostics, for printing them with snippets; at a
// committed revision their names read "REV:path".
type LoadError struct {
	Revision Revision
	Diags    hcl.Diagnostics
	Files    map[string]*hcl.File
}

func (e *LoadError) Error() string {
	var msgs []string
	for _, d := range e.Diags.Errs() {
		msgs = append(msgs, d.Error())
	}
	return fmt.Sprintf("the pipeline does not load at %s: %s (fix it there, or compare other revisions)", e.Revision.Label(), strings.Join(msgs, "; "))
}

// loadSide loads the pipeline at path as the version rev and computes the
// static key lines of every node. rename rewrites the paths of a
// materialised tree in messages to what the user knows (nil keeps them).
func loadSide(rev Revision, path string, o *Options, stat *hash.StatCache, rename func(string) string) (*side, error) {
	// Every side uses the pipeline's own state folder, whose secret keys
	// the hash of sensitive values: the sides' key lines compare, and they
	// read as plan and explain show them.
	p, diags := config.Load(path, config.Options{Kinds: o.Kinds, Vars: o.Vars, VarFiles: o.VarFiles, Env: o.Env, RecordReads: true, StateDir: o.StateDir})
	if !diags.HasErrors() {
		dag, d := plan.BuildDAG(p)
		diags = append(diags, d...)
		if !diags.HasErrors() {
			s := &side{rev: rev, path: path, pipeline: p, dag: dag, rename: rename}
			if rename == nil {
				s.rename = func(s string) string { return s }
			}
			lock, _, d := lockfile.Load(lockfile.Path(p.Root))
			diags = append(diags, d...)
			if !diags.HasErrors() {
				s.pins = lock.Pins
				s.keyNodes(stat)
				return s, nil
			}
		}
	}
	e := &LoadError{Revision: rev, Diags: diags}
	if p != nil {
		e.Files = p.Files
	}
	if rename != nil {
		e.Diags, e.Files = renameSources(diags, e.Files, rename)
	}
	return nil, e
}

// keyNodes computes every node's static key lines, dependencies first, so
// each node sees the exports its upstream nodes have before they run.
func (s *side) keyNodes(stat *hash.StatCache) {
	p := s.pipeline
	s.lines = map[addr.Node][]hash.Line{}
	s.failed = map[addr.Node]hcl.Diagnostics{}
	vals := plan.NewValues()
	for _, v := range s.dag.Graph.Order() {
		n := s.dag.Nodes[v]
		vals.Set(n.Addr, staticValue(p, n, vals, s.pins[n.Addr.String()]))
		lines, diags := plan.StaticLines(p, n, vals, stat, s.pins[n.Addr.String()])
		if diags.HasErrors() {
			s.failed[n.Addr] = diags
			continue
		}
		s.lines[n.Addr] = lines
	}
}

// staticValue is what n exports before it runs: its stable output path, an
// unknown digest and its kind's exports (a git_repo's pinned commit), with
// the lock's pins applied.
func staticValue(p *config.Pipeline, n *config.Node, vals config.Values, pins map[string]string) cty.Value {
	attrs := map[string]cty.Value{
		"out":    cty.StringVal(p.OutPath(n.Addr)),
		"digest": cty.UnknownVal(cty.String),
	}
	if ev, diags := p.Evaluate(n, vals, plan.SelfOutPlaceholder); !diags.HasErrors() {
		kn := &kind.Node{Addr: n.Addr, Config: ev.Config, Root: p.Root, Out: p.OutPath(n.Addr), State: p.StateDir}
		if pk, ok := n.Block.Kind.(kind.Pinner); ok && len(pins) > 0 && ev.Config.IsWhollyKnown() {
			if pinned, err := pk.Pin(kn, pins); err == nil {
				kn.Config = pinned
			}
		}
		for k, v := range n.Block.Kind.Exports(kn) {
			attrs[k] = v
		}
	}
	return cty.ObjectVal(attrs)
}

// renameSources rewrites the file names of diagnostics and their sources,
// and the paths their messages mention.
func renameSources(diags hcl.Diagnostics, files map[string]*hcl.File, rename func(string) string) (hcl.Diagnostics, map[string]*hcl.File) {
	renamed := make(map[string]*hcl.File, len(files))
	for name, f := range files {
		renamed[rename(name)] = f
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Subject = renameRange(d.Subject, rename)
		c.Context = renameRange(d.Context, rename)
		c.Summary = rename(d.Summary)
		c.Detail = rename(d.Detail)
		out[i] = &c
	}
	return out, renamed
}

func renameRange(r *hcl.Range, rename func(string) string) *hcl.Range {
	if r == nil {
		return nil
	}
	c := *r
	c.Filename = rename(r.Filename)
	return &c
}
