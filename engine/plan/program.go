package plan

import (
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/state"
)

// Program is the program a node runs, as its key records it (its program
// line): the name as written, the file found with symlinks resolved (so
// pointing /usr/bin/python3 at another version changes the key), and, for a
// file inside the pipeline folder, its digest (so editing ./train.sh
// rebuilds). Paths in the pipeline and state folders are written as
// $KILN_ROOT/... and $KILN_STATE/..., so a moved pipeline keeps its keys; a
// program inside an upstream's result as $KILN_UPSTREAM/..., its place in
// that result. PATH itself is not keyed: only what it finds.
type Program struct {
	Name, Path, Digest string
}

// Line is the program's key line.
func (p *Program) Line() hash.Line {
	v := hash.EscapeSubject(p.Path)
	if p.Digest != "" {
		v += " " + p.Digest
	}
	return hash.Line{Label: "program", Subject: p.Name, Value: v}
}

// InRoot is the program's file inside the pipeline folder root (its digest
// is in the key, so a sealed run may read it), or "".
func (p *Program) InRoot(root string) string {
	if p == nil || p.Digest == "" {
		return ""
	}
	rel, ok := strings.CutPrefix(p.Path, hash.RootMark+"/")
	if !ok {
		return ""
	}
	return filepath.Join(root, rel)
}

// ResolveProgram finds the program a node runs as its build will
// (proc.LookPath).
func ResolveProgram(root, stateDir, name, dir string, env []string, stat *hash.StatCache) (*Program, error) {
	found, err := proc.LookPath(name, dir, env)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(found); err == nil {
		found = real
	}
	if abs, err := filepath.Abs(found); err == nil {
		found = abs
	}
	if _, rel, ok := state.OpenStore(stateDir).InRun(found); ok && rel != "" {
		// An upstream's program (${python_env.x.out}/bin/python): that
		// upstream's digest is a dep line already, and the run folder the
		// stable link points at is named anew by every run of its key, so
		// only the place inside the result is written.
		return &Program{Name: name, Path: upstreamProgram + "/" + rel}, nil
	}
	paths := pathNormaliser{state: stateDir, root: root}
	prog := &Program{Name: name, Path: paths.normalise(found)}
	if within(root, found) && !within(stateDir, found) {
		d, err := hash.File(found, stat)
		if err != nil {
			return nil, err
		}
		prog.Digest = d.String()
	}
	return prog, nil
}

// decideProgram resolves the program of a ProgramRunner node into
// dec.Program. A program found nowhere blocks the node, unless an upstream
// node may still make it (the build then says what is missing).
func (d *Decider) decideProgram(dec *Decision) {
	pr, ok := dec.Kind.(kind.ProgramRunner)
	if !ok || dec.KindNode == nil {
		return
	}
	name, dir, env, ok := pr.Program(dec.KindNode)
	if !ok {
		return
	}
	prog, err := ResolveProgram(d.Pipeline.Root, d.Pipeline.StateDir, name, dir, env, d.Stat)
	switch {
	case err == nil:
		dec.Program = prog
	case dec.Blocked == "" && len(dec.Node.Deps) == 0:
		dec.Blocked = err.Error()
	}
}

// upstreamProgram stands for the result folder of the upstream a program
// lies in, in a program key line.
const upstreamProgram = "$KILN_UPSTREAM"
