package toolchain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/proc"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

// Probe checks the setup scripts and the version without sourcing anything,
// and that bash, which Build sources them with, is on kiln's PATH.
func (t *Toolchain) Probe(ctx context.Context, n *kind.Node, _ *kind.Record) (*kind.Probe, error) {
	c, err := decodeConfig(n.Config, n.Root)
	if errors.Is(err, errUnknown) {
		return &kind.Probe{Facts: map[string]string{"probe": "deferred: " + errUnknown.Error()}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label(n.Addr), err)
	}
	if t.ProbeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.ProbeTimeout)
		defer cancel()
	}
	in := t.inspect(ctx, c, n.Addr, n.Root, proc.Environ("PATH", "HOME"))
	if _, err := exec.LookPath("bash"); err != nil {
		// Build sources the setup scripts with bash from kiln's PATH.
		in.Problems = append(in.Problems, fmt.Sprintf("bash not found on PATH (%s): the setup scripts are sourced with bash; install it (apt-get install bash) or add its folder to PATH", os.Getenv("PATH")))
	}
	p := &kind.Probe{KeyLines: in.KeyLines, Facts: in.Facts}
	if len(in.Problems) > 0 {
		p.Blocked = label(n.Addr) + ": " + strings.Join(in.Problems, "; ")
	}
	return p, nil
}

// inspection is what a look at the setup scripts and the version found.
type inspection struct {
	Version  string
	KeyLines [][2]string
	Facts    map[string]string
	Problems []string
}

// inspect hashes every setup script and reads the version; anything that
// keeps the toolchain from being built goes to Problems.
func (t *Toolchain) inspect(ctx context.Context, c *config, a addr.Node, dir string, env []string) inspection {
	var in inspection
	found, where, problem := t.readVersion(ctx, c, a, dir, env)
	in.Version = found
	in.Facts = map[string]string{"version": found, "probe": where}
	if found == "" {
		in.KeyLines = append(in.KeyLines, [2]string{"toolchain.version", "none"})
	} else {
		in.KeyLines = append(in.KeyLines, [2]string{"toolchain.version", found})
	}
	for _, s := range c.Setup {
		sum, err := fileSHA256(s)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			in.Problems = append(in.Problems, fmt.Sprintf("%s not found (install %s %s or set the variable that names its path)", s, product(a), c.Version))
			sum = "missing"
		case err != nil:
			in.Problems = append(in.Problems, fmt.Sprintf("cannot read setup script %s: %v (check its permissions)", s, err))
			sum = "unreadable"
		}
		in.KeyLines = append(in.KeyLines, [2]string{"toolchain.setup " + s, sum})
	}
	switch {
	case problem != "":
		in.Problems = append(in.Problems, problem)
	case found != c.Version && c.ProbeCommand != nil:
		in.Problems = append(in.Problems, fmt.Sprintf("version %s found by %s, %s required", found, where, c.Version))
	case found != c.Version:
		in.Problems = append(in.Problems, fmt.Sprintf("version %s found in %s, %s required", found, where, c.Version))
	}
	return in
}

// readVersion runs the configured probe. where names the file or command;
// problem says why no version was found.
func (t *Toolchain) readVersion(ctx context.Context, c *config, a addr.Node, dir string, env []string) (found, where, problem string) {
	if c.ProbeCommand == nil {
		where = c.ProbeFile
		v, ok, err := proc.ReadKey(c.ProbeFile, c.ProbeKey)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", where, fmt.Sprintf("version file %s not found (install %s %s or set probe.file to the file that records its version)", where, product(a), c.Version)
		case err != nil:
			return "", where, fmt.Sprintf("cannot read version file %s: %v", where, err)
		case !ok || v == "":
			return "", where, fmt.Sprintf("version file %s has no %s= line (set probe.key to the key that holds the version)", where, c.ProbeKey)
		}
		return v, where, ""
	}
	where = "`" + strings.Join(c.ProbeCommand, " ") + "`"
	out := &proc.Tail{Max: 64 << 10}
	cmd := exec.Command(c.ProbeCommand[0], c.ProbeCommand[1:]...)
	cmd.Dir, cmd.Env = dir, env
	w := &proc.SyncWriter{W: out}
	cmd.Stdout, cmd.Stderr = w, w
	if err := proc.Run(ctx, cmd, t.Grace); err != nil {
		return "", where, fmt.Sprintf("version probe %s failed: %v: %s", where, err, proc.LastLines(out.String(), 5))
	}
	m := c.ProbePattern.FindStringSubmatch(out.String())
	if m == nil || m[1] == "" {
		return "", where, fmt.Sprintf("version probe %s printed nothing matching /%s/ (fix probe.pattern): %s", where, c.ProbePattern, proc.LastLines(out.String(), 5))
	}
	return m[1], where, ""
}

func fileSHA256(path string) (string, error) {
	d, err := hash.FileSum(path)
	if err != nil {
		return "", err
	}
	return d.String(), nil
}
