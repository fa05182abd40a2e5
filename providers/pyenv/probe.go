package pyenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/kilnbuild/kiln/engine/proc"
)

var _ kind.Prober = (*PythonEnv)(nil)

// probeTimeout bounds one run of an interpreter at plan time.
const probeTimeout = 20 * time.Second

// interpreter is what a plan-time look at an interpreter found.
type interpreter struct {
	path    string
	version string
	problem string // why it cannot make a venv here; "" when it can
}

// probes caches interpreter looks by name and PATH for the life of the
// process: a plan asks once per interpreter, however many environments use
// it.
var probes sync.Map // string -> *interpreterOnce

type interpreterOnce struct {
	once sync.Once
	in   interpreter
}

// Probe checks at plan time that the interpreter the venv is made from is
// on this machine and runs, with the venv module: a pipeline that names
// python3.11 says "python3.11 not found" before anything runs, not hours
// later. The name is looked up on the PATH the build searches: the node's
// (its toolchain's variables, env_prepend and env_append) when it is known,
// else kiln's own (a toolchain still to be built).
//
// The interpreter's major.minor version enters the key (python.version): a
// venv is bound to the minor version it was made with (its site-packages
// folder, compiled extensions), so another one — python3 upgraded from
// 3.11 to 3.12 — rebuilds the environment, and the earlier result stays
// restorable for the earlier interpreter. A patch release is the same key.
// The full version is part of the digest once the venv is built. With
// system_site_packages, every distribution the interpreter itself sees is a
// key line too (python.system_site NAME, its version), so a vendor image
// with another torch rebuilds the venv, naming the package.
func (p *PythonEnv) Probe(ctx context.Context, n *kind.Node, _ *kind.Record) (*kind.Probe, error) {
	python := "python3"
	if v := n.Config; !v.IsNull() && v.IsKnown() && v.Type().IsObjectType() && v.Type().HasAttribute("python") {
		if a := v.GetAttr("python"); a.IsKnown() && !a.IsNull() {
			python = a.AsString()
		}
	}
	path := os.Getenv("PATH")
	if n.Env != nil {
		path, _ = lookupEnv(n.Env, "PATH")
	}
	v, _ := probes.LoadOrStore(python+"\x00"+n.Root+"\x00"+path, &interpreterOnce{})
	o := v.(*interpreterOnce)
	o.once.Do(func() { o.in = lookInterpreter(ctx, python, path, n.Root, p.grace()) })
	in := o.in
	if in.problem != "" {
		return &kind.Probe{Blocked: fmt.Sprintf("python_env %s: %s", n.Addr.Name, in.problem)}, nil
	}
	probe := &kind.Probe{
		KeyLines: [][2]string{{"python.version", minorVersion(in.version)}},
		Facts:    map[string]string{"interpreter": in.path, "interpreter_version": in.version},
	}
	if r := attr.Read(n.Config); r.Bool("system_site_packages") && r.Err() == nil {
		lines, problem := p.systemSiteLines(ctx, in.path, path)
		if problem != "" {
			return &kind.Probe{Blocked: fmt.Sprintf("python_env %s: %s", n.Addr.Name, problem)}, nil
		}
		probe.KeyLines = append(probe.KeyLines, lines...)
		probe.Facts["system_site_packages"] = fmt.Sprint(len(lines))
	}
	return probe, nil
}

// minorVersion is the major.minor part of a version such as 3.11.4.
func minorVersion(v string) string {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// lookInterpreter finds python on path and runs it once.
func lookInterpreter(ctx context.Context, python, path, root string, grace time.Duration) interpreter {
	interp, err := findInterpreter(python, []string{"PATH=" + path}, root)
	if err != nil {
		return interpreter{problem: python + " not found (install it, add its folder to PATH, or set python to an installed interpreter)"}
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var stderr bytes.Buffer
	c := command{
		Path: interp,
		Args: []string{"-c", "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])"},
		Env:  append(proc.Environ("HOME", "LANG"), "PATH="+path),
		Log:  &stderr,
	}
	out, err := output(ctx, c, grace)
	if err != nil {
		why := firstComplaint(stderr.String())
		if why == "" {
			why = err.Error()
		}
		if strings.Contains(why, "ensurepip") || strings.Contains(why, "venv") {
			why += " (on Debian and Ubuntu install python3-venv)"
		}
		return interpreter{path: interp, problem: fmt.Sprintf("%s (%s) does not run: %s", python, interp, why)}
	}
	return interpreter{path: interp, version: strings.TrimSpace(string(out))}
}

// firstComplaint is the line of an interpreter's error output that says
// what is wrong: the last line of a Python traceback, else the first line
// (a pyenv shim's "pyenv: python3.10: command not found").
func firstComplaint(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch {
	case len(lines) == 0:
		return ""
	case strings.HasPrefix(lines[0], "Traceback"):
		return lines[len(lines)-1]
	}
	return lines[0]
}
