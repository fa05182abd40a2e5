package kind

import (
	"context"
	"io"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/zclconf/go-cty/cty"
)

// Kind is one block type of the language.
type Kind interface {
	// Name is the block type, e.g. "exec".
	Name() string
	// Version enters every key of this kind; change it when the kind starts
	// producing different results from the same configuration.
	Version() string
	// Spec is the schema of the kind's own attributes and nested blocks. The
	// engine decodes the block body with it; the result is Node.Config.
	Spec() hcldec.ObjectSpec
	// Exports are the attributes other nodes may reference besides out and
	// digest (git_repo.commit, service.url, python_env.python). They are known
	// before the node runs; a value that depends on the run is cty.UnknownVal
	// of its type here and comes from Result.Exports once built.
	Exports(n *Node) map[string]cty.Value
	// Build makes the node's result.
	Build(ctx context.Context, b *Build) (*Result, error)
}

// Node is a node's evaluated configuration as the kind sees it.
type Node struct {
	Addr   addr.Node
	Config cty.Value // object decoded with Spec; at plan time it may hold unknowns
	Root   string    // absolute pipeline folder (path.root)
	Out    string    // absolute stable output path, .kiln/out/TYPE.NAME
	State  string    // absolute state folder, .kiln
	// Env is the environment the node's processes start from: the minimal
	// environment and its toolchain's variables, without the kind's own
	// settings or KILN_OUT. nil when not known yet (the toolchain is still
	// to be built).
	Env []string
}

// Build is one run of a node.
type Build struct {
	Node
	// Dir is the fresh output folder of this run ($KILN_OUT), at its final
	// place in the store. Config refers to it as self.out.
	Dir string
	// Resumed is true when Dir holds an interrupted earlier run with the same
	// key (resumable nodes only).
	Resumed bool
	// Env is the base environment for processes the kind starts: a minimal
	// environment, the toolchain's captured variables, and KILN_OUT.
	Env []string
	// Log receives the node's output; the engine keeps it under .kiln/logs and
	// streams it to the terminal.
	Log io.Writer
	// Previous is the node's last good record, if any (for services: the
	// process to replace).
	Previous *Record
	// Shell is what a string command is appended to (kinds that are
	// Sealed); nil means /bin/sh -c.
	Shell []string
	// Sandbox, when set, confines the processes the kind starts (kinds
	// that are Sealed): start each with Sandbox.Start.
	Sandbox *sandbox.Policy
}

// Record is what the state holds of a node's last good build, as kinds see it.
type Record struct {
	Key    string
	Digest string
	Dir    string            // the store entry of that build, or ""
	Attrs  map[string]string // Result.Attrs of that build
}

// Result is what a build made.
type Result struct {
	// Digest identifies the result. Empty means the engine computes it: the
	// Merkle digest of Dir plus the declared in-place outputs.
	Digest string
	// Attrs are kind-specific facts kept in state (a service's pid, a
	// captured environment as JSON, a resolved commit).
	Attrs map[string]string
	// Exports override the unknown values of Kind.Exports once built.
	Exports map[string]cty.Value
	// Outputs are extra in-place paths (relative to Root or absolute) to hash
	// into the digest and guard against drift.
	Outputs []string
}
