package kind

import (
	"context"
	"errors"

	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/schema"

	"github.com/zclconf/go-cty/cty"
)

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

// Service is implemented by kinds whose result is a running process, which
// outlives the apply that started it: it is started (^) rather than built,
// never restored from the store or rebuilt for a check, and kiln destroy
// stops it.
type Service interface {
	// Stop ends the process a build started.
	Stop(ctx context.Context, n *Node, rec *Record) error
}

// IsService reports whether k's result is a running process (a Service).
func IsService(k Kind) bool {
	_, ok := k.(Service)
	return ok
}

// Pinner is implemented by kinds whose configuration may leave a value to be
// resolved once — a git ref's commit, a download's checksum — which the lock
// file (kiln.lock.hcl) then keeps, so a moving ref or a changed download never
// silently changes a build.
//
// Pins name what they were resolved from as well as the resolved value (a
// git pin holds ref and url beside commit), so Pin can tell a pin that no
// longer fits the configuration (the ref was edited) and ignore it.
type Pinner interface {
	// Pins are the values a build resolved, to lock; nil when the
	// configuration leaves nothing open. n.Config is the configuration
	// before Pin.
	Pins(n *Node, r *Result) map[string]string
	// Pin returns the configuration with locked values applied. Pins that do
	// not fit n.Config are ignored (n.Config is returned as it is); malformed
	// ones are an error.
	Pin(n *Node, pins map[string]string) (cty.Value, error)
}

// PinResolver is implemented by Pinners that can resolve their pins without
// building (git ls-remote for a ref), for kiln lock. Env is the environment
// for the processes the kind starts. A kind that can only learn its pins by
// building returns an error wrapping ErrPinNeedsBuild that says so.
type PinResolver interface {
	ResolvePins(ctx context.Context, n *Node, env []string) (map[string]string, error)
}

// Unpinned is implemented by Pinners to say, for the plan, what a
// configuration still leaves open once the lock's pins are applied (a git
// ref or a Hugging Face branch not resolved yet, a download without a
// checksum): "" when nothing is. n.Config is the configuration after Pin.
type Unpinned interface {
	Unpinned(n *Node) string
}

// ErrPinNeedsBuild is wrapped by PinResolver errors for pins that only a
// build can learn (the checksum of a download).
var ErrPinNeedsBuild = errors.New("only a build can resolve it")

// Portable is implemented by kinds whose Build can run in another process,
// on another host that sees the same files: a Slurm job runs it from the
// node's evaluated configuration and Build alone (kiln job run), never from
// state the submitting kiln holds in memory. Only portable kinds take an
// executor other than local.
type Portable interface {
	Portable() bool
}

// IsPortable reports whether k implements Portable and says it is.
func IsPortable(k Kind) bool {
	p, ok := k.(Portable)
	return ok && p.Portable()
}

// Shareable is implemented by kinds whose result is the files of their
// output folder and nothing of the host that built it beyond what the key
// holds, so a remote cache may hand it to another host. Services, hosts and
// toolchains describe a machine and never are; a kind whose results embed
// their own absolute path (a virtualenv) is not either.
type Shareable interface {
	Shareable() bool
}

// IsShareable reports whether k implements Shareable and says it is.
func IsShareable(k Kind) bool {
	s, ok := k.(Shareable)
	return ok && s.Shareable()
}

// Checker is implemented by kinds that can tell from the configuration
// alone that a build would fail (a git_repo commit that is not a full SHA,
// a commit given with a ref): validate and plan report it before anything
// runs. n.Config is wholly known when Check is called.
type Checker interface {
	Check(n *Node) error
}

// Documented is implemented by kinds that describe their block as data
// (schema.Block): kiln help and docs/language.md are written from it, and
// the kind's Spec must be its Spec, so the reference and the loader read
// the same source.
type Documented interface {
	Schema() *schema.Block
}

// ProgramRunner is implemented by kinds whose configuration may name the
// program they run (exec's command given as a list). The engine finds the
// program at plan time as the build will, and its resolved path — with its
// digest when it lies inside the pipeline folder — enters the node's key on
// a program line; a bare name found nowhere on PATH means the node cannot
// run here.
type ProgramRunner interface {
	// Program is the program as written, the folder a relative path is taken
	// from, and the environment whose PATH is searched (Node.Env with the
	// kind's own settings). ok is false when the configuration names no
	// program (a /bin/sh -c string) or is not known yet.
	Program(n *Node) (name, dir string, env []string, ok bool)
}

// ProgressReporter is implemented by kinds that move data while they build
// (a download) and can say how far each transfer is. The engine hands it,
// for an apply, the function that takes a node's transfer: its address,
// the bytes done and the total (-1 when unknown); nil when nothing shows
// transfers.
type ProgressReporter interface {
	ReportProgress(progress func(addr string, done, total int64))
}

// DeviceReporter is implemented by Prober kinds whose probe finds devices
// of the machine (a host's NPUs). The engine probes the first such node
// when it works out this machine's resource pools (Workspace.Pools): the
// devices become a pool with their ids, beside the CPUs and memory it
// counts itself. Devices returns nil when the probe found none (or was
// deferred until an upstream runs).
type DeviceReporter interface {
	Devices(addr string, p *Probe) *pool.Host
}

// Sealed is implemented by kinds whose runs the engine seals (see
// engine/sandbox): their processes start from the reproducible environment,
// a string command runs in the node's shell (Build.Shell), and where
// Build.Sandbox is set every process starts under it (its Start), so it
// may write only the run's own result. Each part of that contract is a
// line of the node's key.
type Sealed interface {
	Kind
	Sealed()
}
