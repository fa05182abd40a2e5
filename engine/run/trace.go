package run

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/sandbox"
)

// TraceReport is what a traced run (kiln apply -trace ADDR) read and ran,
// sorted into what its configuration declares and what it does not.
type TraceReport struct {
	Addr addr.Node
	// Undeclared are files inside the pipeline folder the run read without
	// declaring them (relative to the folder): the inputs to add.
	Undeclared []string
	// Declared are files inside the pipeline folder it read as inputs.
	Declared []string
	// Upstream are the results of other nodes it read, by node.
	Upstream map[string]int
	// Outside are the files it read outside the pipeline folder (the
	// system, data sets on other disks), absolute.
	Outside []string
	// Programs are the programs it ran.
	Programs []string
	// Written are the paths it wrote outside its own result and temporary
	// folder (a sealed run can write none).
	Written []string
	// Log is the trace strace wrote, kept beside the run's log.
	Log string
	// Err says why there is no trace, when there is none.
	Err error
	// Reported: the node sets sandbox = "report" and was not named by
	// -trace; only what it read undeclared is worth saying.
	Reported bool
}

// traced reports whether n's runs are traced: named by kiln apply -trace,
// or sandbox = "report".
func (a *Applier) traced(n *config.Node) bool {
	return a.Options.Trace[n.Addr.String()] || n.Meta.ReportReads && n.Meta.Unsandboxed == ""
}

// traceFile is where the trace of a run in tmp is written: its private
// temporary folder, which the sealed run may write.
func traceFile(tmp string) string { return filepath.Join(tmp, "kiln-trace.strace") }

// traceReport reads the trace of a run of dec's node and sorts what it
// touched; the trace is kept beside the run's log, at logPath.trace.
func (a *Applier) traceReport(dec *plan.Decision, s *sealedRun, logPath string) *TraceReport {
	r := &TraceReport{Addr: dec.Node.Addr, Upstream: map[string]int{}, Reported: !a.Options.Trace[dec.Node.Addr.String()]}
	if s == nil || s.policy == nil || s.policy.Trace == "" {
		r.Err = fmt.Errorf("%s is not a node whose runs kiln seals (exec, service): nothing to trace", dec.Node.Addr)
		return r
	}
	r.Log = logPath + ".trace"
	if err := keepTrace(s.policy.Trace, r.Log); err != nil {
		r.Log = ""
	}
	t, err := sandbox.ReadTrace(s.policy.Trace, s.policy.View)
	if err != nil {
		r.Err = err
		return r
	}
	root := a.Decider.Pipeline.Root
	// The trace has paths as the kernel resolved them: so are the
	// declared ones (an input that is a link to a data set elsewhere).
	declared := slices.Clone(s.policy.Read)
	for _, p := range s.policy.Read {
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			declared = append(declared, real)
		}
	}
	for _, p := range t.Read {
		if isDir(p) {
			continue // a folder listed, not a file read
		}
		switch {
		case s.ownerOf(p) != "":
			r.Upstream[s.ownerOf(p)]++
		case underAny(p, declared):
			r.Declared = append(r.Declared, relPath(root, p))
		case !within(root, p):
			r.Outside = append(r.Outside, p)
		case within(filepath.Join(root, ".kiln"), p) || within(s.tmp, p) || underAny(p, s.policy.Write):
		default:
			r.Undeclared = append(r.Undeclared, relPath(root, p))
		}
	}
	for _, p := range t.Written {
		if !underAny(p, s.policy.Write) && !within("/dev", p) && !within("/proc", p) {
			r.Written = append(r.Written, p)
		}
	}
	r.Programs = t.Programs
	return r
}

// ownerOf is the upstream whose result holds path, or "".
func (s *sealedRun) ownerOf(path string) string {
	for owned, up := range s.owners {
		if within(owned, path) {
			return up.String()
		}
	}
	return ""
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if within(r, path) {
			return true
		}
	}
	return false
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// keepTrace copies a trace out of the run's temporary folder, which goes
// with the run.
func keepTrace(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Suggestion is the inputs line that declares what the run read without
// declaring it, or "".
func (r *TraceReport) Suggestion() string {
	if len(r.Undeclared) == 0 {
		return ""
	}
	quoted := make([]string, len(r.Undeclared))
	for i, p := range r.Undeclared {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	return "inputs = [..., " + strings.Join(quoted, ", ") + "]"
}
