package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Policy is what the processes of one run may touch.
type Policy struct {
	// Root is the pipeline folder: hidden from the run but for Read and
	// Write.
	Root string
	// Read are paths the run may read (and run programs from) inside Root:
	// its declared inputs, its upstream results and its dir.
	Read []string
	// Write are the paths the run may write, and read: its run folder, its
	// in-place outputs, its private temporary folder, the host's extra
	// writable paths.
	Write []string
	// ReadAll lets the run read all of Root, as a traced run does, so
	// that the trace names what it would have been refused.
	ReadAll bool
	// Trace, when set, runs the command under strace, which writes what it
	// opened and ran to this file (ReadTrace reads it).
	Trace string
	// View, when set, is where the run sees its folders: at fixed places,
	// in a mount namespace of its own (see Relocation).
	View *View `json:",omitempty"`
	// Held, when set, holds some of the Read paths open (Held.Hold): their
	// rules use the open folders. Not sent with a batch job's policy.
	Held *Held `json:"-"`
}

// Umask is the file mode creation mask of every run's processes.
const Umask = 0o022

// WritableEnv names the host's extra writable paths (see the package doc).
const WritableEnv = "KILN_SANDBOX_WRITABLE"

// HostWritable are the extra writable paths of this host, from
// KILN_SANDBOX_WRITABLE: absolute, cleaned, empty entries dropped.
func HostWritable() []string {
	var out []string
	for _, p := range filepath.SplitList(os.Getenv(WritableEnv)) {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// Start starts cmd confined by the policy. Where the kernel cannot confine
// it (see Probe), cmd starts with the umask alone. A policy with a view
// this machine cannot show is refused: the run's key says it sees fixed
// paths, and a result built at the host's paths must not be kept (or
// shared through a cache) under that key.
func (p *Policy) Start(cmd *exec.Cmd) error {
	if p.View != nil {
		if err := Relocation(); err != nil {
			return fmt.Errorf("sandbox: this run's key says it sees the fixed paths under %s, which this machine cannot show (%v); run kiln plan here to decide it for this machine", ViewRoot, err)
		}
		p.View.rewrite(cmd)
	}
	if p.Trace != "" {
		if err := traced(cmd, p.Trace); err != nil {
			return err
		}
	}
	return startConfined(cmd, p)
}

// Owner says whose a path is, for messages: an upstream's result, kiln's
// state, the pipeline folder.
type Owner func(path string) string

// Writable reports whether path lies in one of the policy's writable
// paths.
func (p *Policy) Writable(path string) bool { return under(path, p.Write) }

// Readable reports whether the run may read path: outside the pipeline
// folder, or in one of its readable or writable paths.
func (p *Policy) Readable(path string) bool {
	if !within(path, p.Root) || p.ReadAll {
		return true
	}
	return under(path, p.Read) || under(path, p.Write)
}

func under(path string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return within(path, r) })
}

// within reports whether path is root or lies below it.
func within(path, root string) bool {
	if root == "" {
		return false
	}
	if path == root || root == "/" {
		return true
	}
	return strings.HasPrefix(path, root) && path[len(root)] == '/'
}
