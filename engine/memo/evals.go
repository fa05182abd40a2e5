package memo

import (
	"runtime"
	"strings"
	"sync"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/par"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
)

// certEval is what the memo takes of a node's evaluated configuration:
// how its program is found, its input patterns, its kind's exports and
// what blocked it, for its value. It is noted from the decision that
// settled the node — each node's turn in an apply, the plan's own
// decisions in a plan — so that writing the memo evaluates no node again,
// and needs nothing of the pipeline's syntax tree. A node the memo vouched
// for (plan.Decision.Settled) keeps what the memo held of it.
type certEval struct {
	settled bool
	blocked string
	exports map[string]cty.Value
	// runner: the kind runs a program it names; known: the node's
	// environment was known (an upstream value it reads was); named: the
	// configuration names a program, name in dir, searched on path.
	runner, known, named bool
	name, dir, path      string
	// patterns are the node's input patterns that hold wildcards: a new
	// file that matches one must be noticed, not only a changed one.
	patterns []string
	// listing lists the run folder of entry, read as the decision checked
	// the result's digest (plan.Decision.Listing): the memo lists that
	// folder without reading it again.
	listing *hash.Listing
	entry   string
	// value is what the node's dependents were given (plan.Decision.Value)
	// by a decision that left record as it was; cty.NilVal when none.
	value  cty.Value
	record *state.Record
}

// certEvalOf is what the memo takes of dec; false when dec holds no
// evaluated configuration.
func certEvalOf(dec *plan.Decision) (certEval, bool) {
	if dec.Settled {
		return certEval{settled: true}, true
	}
	if dec.Config == nil || dec.KindNode == nil {
		return certEval{}, false
	}
	e := certEval{blocked: dec.Blocked, exports: dec.Kind.Exports(dec.KindNode)}
	if dec.Listing != nil && dec.Record != nil {
		e.listing, e.entry = dec.Listing, dec.Record.Entry
	}
	if dec.Action == plan.NoOp && dec.Record != nil {
		e.value, e.record = dec.Value, dec.Record
	}
	for _, pat := range dec.Config.Inputs {
		if strings.ContainsAny(pat, "*?[") {
			e.patterns = append(e.patterns, pat)
		}
	}
	runner, ok := dec.Kind.(kind.ProgramRunner)
	if !ok {
		return e, true
	}
	e.runner, e.known = true, dec.KindNode.Env != nil
	if e.known {
		var env []string
		e.name, e.dir, env, e.named = runner.Program(dec.KindNode)
		e.path = proc.EnvValue(env, "PATH")
	}
	return e, true
}

// program is how the node's program is found again, given the program key
// line its record holds (line, empty for none); nil when it names none. ok
// is false when the program cannot be found again without the full plan.
func (e certEval) program(line string) (pr *Program, ok bool) {
	switch {
	case !e.runner:
		return nil, line == ""
	case !e.known:
		return nil, false
	case !e.named && line == "":
		return nil, true
	case !e.named || line == "":
		return nil, false
	}
	return &Program{Name: e.name, Dir: e.dir, Path: e.path, Line: line}, true
}

// Evals are the nodes' certEvals, noted as they are decided (by several
// of an apply's goroutines at once).
type Evals struct {
	mu    sync.Mutex
	nodes map[addr.Node]certEval
}

// Note keeps what the memo takes of dec, replacing what an earlier
// decision of the same node left.
func (c *Evals) Note(dec *plan.Decision) {
	e, ok := certEvalOf(dec)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes == nil {
		c.nodes = map[addr.Node]certEval{}
	}
	if !ok {
		delete(c.nodes, dec.Node.Addr)
		return
	}
	c.nodes[dec.Node.Addr] = e
}

// NoteAll notes every decision of decs, in order (a plan's), what each
// one's memo takes worked out in parallel.
func (c *Evals) NoteAll(decs []*plan.Decision) {
	es := make([]certEval, len(decs))
	ok := make([]bool, len(decs))
	par.Each(len(decs), runtime.GOMAXPROCS(0), func(i int) { es[i], ok[i] = certEvalOf(decs[i]) })
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes == nil {
		c.nodes = make(map[addr.Node]certEval, len(decs))
	}
	for i, dec := range decs {
		if ok[i] {
			c.nodes[dec.Node.Addr] = es[i]
		} else {
			delete(c.nodes, dec.Node.Addr)
		}
	}
}

func (c *Evals) of(a addr.Node) (certEval, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.nodes[a]
	return e, ok
}
