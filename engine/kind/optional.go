package kind

import "context"

// Prober is implemented by kinds that read the machine at plan time: a host's
// NPUs, a toolchain's version, a service's health.
type Prober interface {
	Probe(ctx context.Context, n *Node, prev *Record) (*Probe, error)
}

// Probe is what a plan-time look at the machine found.
type Probe struct {
	// KeyLines are facts that enter the node's key, as label/value pairs.
	KeyLines [][2]string
	// Facts are recorded and shown by explain; Exports for other nodes.
	Facts map[string]string
	// Blocked, when set, says why the node cannot run on this machine: the
	// plan marks it and its dependents, apply refuses them.
	Blocked string
	// Down, for services, says why a previously started node must be started
	// again (not running, unhealthy).
	Down string
}

// Verifier is implemented by kinds that check their own results for drift
// instead of re-hashing the output folder (a git checkout compares trees).
// drift is empty when the result is intact.
type Verifier interface {
	Verify(ctx context.Context, n *Node, rec *Record) (drift string, err error)
}

// KeyFiles is implemented by kinds whose configuration names files whose
// contents must enter the key (git_repo patches, requirements files). Paths
// are relative to Node.Root or absolute.
type KeyFiles interface {
	KeyFiles(n *Node) []string
}

// Service is implemented by kinds whose result is a running process.
type Service interface {
	// Stop ends the process a build started.
	Stop(ctx context.Context, n *Node, rec *Record) error
}
