package engine

import (
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
)

// How a node's lock entry varies from run to run, which decides what
// kiln.lock.hcl keeps of it: the lock is reviewed and merged in git, so it
// holds only what the pipeline decides. A deterministic node below
// deterministic upstreams keeps its key and digest; a node with
// deterministic = false (a training run) keeps its key, which changes only
// with the pipeline, but no digest, which every run changes; a node below
// such a node keeps nothing, since its key holds that upstream's digest.
type variation int

const (
	fixed       variation = iota
	ownVaries             // deterministic = false
	aboveVaries           // an upstream's result varies
)

// variations says how each node of p varies, computing each node once.
type variations struct {
	p    *config.Pipeline
	seen map[addr.Node]variation
}

func (v *variations) of(a addr.Node) variation {
	if x, ok := v.seen[a]; ok {
		return x
	}
	v.seen[a] = fixed // a cycle never loads; this only bounds the walk
	n := v.p.Node(a)
	if n == nil {
		return fixed
	}
	x := fixed
	if !n.Meta.Deterministic {
		x = ownVaries
	}
	for _, d := range n.Deps {
		if x == fixed && v.of(d) != fixed {
			x = aboveVaries
		}
	}
	v.seen[a] = x
	return x
}
