package pyenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind"
)

func (p *PythonEnv) verify(ctx context.Context, n *kind.Node, rec *kind.Record) (string, error) {
	if rec == nil || rec.Digest == "" {
		return "no recorded build to compare with", nil
	}
	dir := rec.Dir
	if dir == "" {
		dir = n.Out
	}
	v := venv{dir: dir, env: verifyEnv(dir), log: io.Discard, grace: p.grace()}
	if err := executable(v.python()); err != nil {
		return fmt.Sprintf("the venv's interpreter is gone: %v", err), nil
	}
	st, err := v.inspect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return fmt.Sprintf("the venv at %s no longer runs: %v", dir, err), nil
	}
	freeze, err := v.freeze(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		return fmt.Sprintf("pip freeze no longer runs in the venv at %s: %v", dir, err), nil
	}
	freeze = normalisePaths(freeze, n.State, n.Root)
	digest := digestOf(st.Version, freeze)
	if digest == rec.Digest {
		return "", nil
	}
	var old []string
	if f := rec.Attrs["freeze"]; f != "" {
		old = strings.Split(f, "\n")
	}
	diff := driftReport(rec.Attrs["python_version"], st.Version, old, freeze)
	if diff == "" {
		diff = fmt.Sprintf("digest %s, recorded %s", digest, rec.Digest)
	}
	return "the venv changed outside kiln: " + diff, nil
}

// verifyEnv is the environment for looking at a built venv. Verify gets no
// build environment from the engine, so it is a minimal one: the system
// folders on PATH and HOME.
func verifyEnv(dir string) []string {
	base := []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	if home, ok := os.LookupEnv("HOME"); ok {
		base = append(base, "HOME="+home)
	}
	return venvEnv(base, filepath.Clean(dir), nil)
}
