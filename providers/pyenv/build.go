package pyenv

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/zclconf/go-cty/cty"
)

// tailLines is how much of pip's output a failed step's error repeats, out
// of its last tailBytes.
const (
	tailLines = 20
	tailBytes = 64 << 10
)

func (p *PythonEnv) build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	cfg, err := decodeConfig(b.Config)
	if err != nil {
		return nil, err
	}
	constraints, err := parseConstraints(cfg.Constraints)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(b.Dir) {
		return nil, fmt.Errorf("output folder %q is not absolute; a venv must be built at its final place", b.Dir)
	}
	log := b.Log
	if log == nil {
		log = io.Discard
	}
	v, err := p.create(ctx, b, log, cfg.Python, cfg.SystemSite)
	if err != nil {
		return nil, err
	}
	snaps, err := p.installAll(ctx, b, log, cfg, v)
	if err != nil {
		return nil, err
	}
	complaints, err := p.pipCheck(ctx, v, cfg.PipCheck, log)
	if err != nil {
		return nil, err
	}
	violations := append(CheckConstraints(constraints, snaps), CheckAbsent(cfg.Absent, snaps)...)
	if err := report(violations, complaints, cfg.PipCheck); err != nil {
		return nil, err
	}
	return p.result(ctx, b, v, complaints)
}

// create makes the venv in Build.Dir with the configured interpreter; with
// systemSite it sees the interpreter's own site-packages.
func (p *PythonEnv) create(ctx context.Context, b *kind.Build, log io.Writer, python string, systemSite bool) (venv, error) {
	interp, err := findInterpreter(python, b.Env, b.Root)
	if err != nil {
		return venv{}, err
	}
	args := []string{"-m", "venv"}
	if systemSite {
		args = append(args, "--system-site-packages")
	}
	args = append(args, b.Dir)
	fmt.Fprintf(log, "python_env: %s %s\n", interp, strings.Join(args, " "))
	create := command{Path: interp, Args: args, Env: b.Env, Dir: b.Dir, Log: log}
	if err := run(ctx, create, p.grace()); err != nil {
		return venv{}, fmt.Errorf("create the venv: %w (the interpreter needs its venv module; on Debian and Ubuntu install python3-venv)", err)
	}
	return venv{dir: b.Dir, env: venvEnv(b.Env, b.Dir, nil), log: log, grace: p.grace()}, nil
}

// installAll runs the install steps in order and returns what the venv
// held after its creation and after each step.
func (p *PythonEnv) installAll(ctx context.Context, b *kind.Build, log io.Writer, cfg config, v venv) ([]Snapshot, error) {
	st, err := v.inspect(ctx)
	if err != nil {
		return nil, err
	}
	snaps := []Snapshot{{Step: 0, Label: "the new venv", Dists: newInventory(st.Dists)}}
	for i, s := range cfg.Steps {
		if err := p.install(ctx, b, log, cfg, i, s); err != nil {
			return nil, err
		}
		if st, err = v.inspect(ctx); err != nil {
			return nil, err
		}
		snaps = append(snaps, Snapshot{Step: i + 1, Label: s.label(), Dists: newInventory(st.Dists)})
	}
	return snaps, nil
}

// result freezes the finished venv into the node's digest, attributes and
// exports.
func (p *PythonEnv) result(ctx context.Context, b *kind.Build, v venv, complaints []string) (*kind.Result, error) {
	st, err := v.inspect(ctx)
	if err != nil {
		return nil, err
	}
	freeze, err := v.freeze(ctx)
	if err != nil {
		return nil, err
	}
	freeze = normalisePaths(freeze, b.State, b.Root)
	stable := b.Out
	if stable == "" {
		stable = b.Dir
	}
	res := &kind.Result{
		Digest: digestOf(st.Version, freeze),
		Attrs: map[string]string{
			"python_version": oneLine(st.Version),
			"freeze":         strings.Join(freeze, "\n"),
		},
		Exports: map[string]cty.Value{
			"python":        cty.StringVal(filepath.Join(stable, "bin", "python")),
			"bin":           cty.StringVal(filepath.Join(stable, "bin")),
			"site_packages": cty.StringVal(sitePackages(b.Dir, stable, st.Purelib)),
		},
	}
	if len(complaints) > 0 {
		res.Attrs["pip_check"] = strings.Join(complaints, "\n")
	}
	return res, nil
}

// install runs step i (0-based) as one pip invocation.
func (p *PythonEnv) install(ctx context.Context, b *kind.Build, log io.Writer, cfg config, i int, s step) error {
	name := fmt.Sprintf("install step %d (%s)", i+1, s.label())
	args, err := s.pipArgs(cfg, b.Root)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(log, "python_env: install step %d/%d: python -m %s\n", i+1, len(cfg.Steps), strings.Join(args, " "))
	last := &proc.Tail{Max: tailBytes}
	c := command{
		Path: filepath.Join(b.Dir, "bin", "python"),
		Args: append([]string{"-m"}, args...),
		Env:  venvEnv(b.Env, b.Dir, s.Env),
		Dir:  b.Dir,
		Log:  io.MultiWriter(log, last),
	}
	if err := run(ctx, c, p.grace()); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		var quoted strings.Builder
		for _, l := range last.Lines(tailLines) {
			quoted.WriteString("    " + l + "\n")
		}
		return fmt.Errorf("%s failed: %w\npip's last lines:\n%s"+
			"Check the requirements pip could not meet and where it may look for them (index_url, extra_index_urls, find_links, no_index on the node; pip.conf is not read)", name, err, quoted.String())
	}
	return nil
}

// pipCheck runs pip check unless mode is "off"; with "warn" its complaints
// go to the log only.
func (p *PythonEnv) pipCheck(ctx context.Context, v venv, mode string, log io.Writer) ([]string, error) {
	if mode == "off" {
		return nil, nil
	}
	complaints, err := v.check(ctx)
	if err != nil {
		return nil, err
	}
	if mode == "warn" {
		for _, c := range complaints {
			fmt.Fprintf(log, "python_env: warning: pip check: %s\n", c)
		}
	}
	return complaints, nil
}

// sitePackages is the venv's purelib folder under the node's stable path.
func sitePackages(dir, stable, purelib string) string {
	rel, err := filepath.Rel(dir, purelib)
	if err != nil || strings.HasPrefix(rel, "..") {
		realDir, err1 := filepath.EvalSymlinks(dir)
		realLib, err2 := filepath.EvalSymlinks(purelib)
		if err1 != nil || err2 != nil {
			return purelib
		}
		if rel, err = filepath.Rel(realDir, realLib); err != nil || strings.HasPrefix(rel, "..") {
			return purelib
		}
	}
	return filepath.Join(stable, rel)
}
