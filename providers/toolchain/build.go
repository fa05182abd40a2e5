package toolchain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/zclconf/go-cty/cty"
)

// EnvFile is the name of the captured environment in the output folder.
const EnvFile = "env.json"

// rawEnvFile receives `env -0` inside the output folder and is removed once read.
const rawEnvFile = ".env.raw"

// shellVars are set by bash itself, not by the setup scripts.
var shellVars = map[string]bool{"_": true, "SHLVL": true, "PWD": true, "OLDPWD": true}

// Build sources the setup scripts and captures what they changed.
func (t *Toolchain) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	c, err := decodeConfig(b.Config, b.Root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label(b.Addr), err)
	}
	in := t.inspect(ctx, c, b.Addr, b.Root, b.Env)
	if len(in.Problems) > 0 {
		return nil, fmt.Errorf("%s: %s", label(b.Addr), strings.Join(in.Problems, "; "))
	}
	after, err := t.source(ctx, b, c.Setup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label(b.Addr), err)
	}
	for k, v := range c.EnvExtra {
		after[k] = v
	}
	changed := changedVars(envMap(b.Env), after)
	data, err := json.MarshalIndent(changed, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: encoding the captured environment: %w", label(b.Addr), err)
	}
	if err := os.WriteFile(filepath.Join(b.Dir, EnvFile), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("%s: writing the captured environment: %w (check that the output folder is writable)", label(b.Addr), err)
	}
	compact, _ := json.Marshal(changed)
	return &kind.Result{
		Digest: digest(in.Version, changed, b.Dir),
		Attrs:  map[string]string{"env": string(compact), "version": in.Version},
		Exports: map[string]cty.Value{
			"env":     envValue(changed),
			"version": cty.StringVal(c.Version),
		},
	}, nil
}

// source runs bash in the build's environment, sources every script in
// order and returns the resulting exported environment.
func (t *Toolchain) source(ctx context.Context, b *kind.Build, scripts []string) (map[string]string, error) {
	raw := filepath.Join(b.Dir, rawEnvFile)
	defer os.Remove(raw)
	var script strings.Builder
	script.WriteString("set -e\nset --\n")
	for _, s := range scripts {
		fmt.Fprintf(&script, "source %s\n", shellQuote(s))
	}
	fmt.Fprintf(&script, "env -0 > %s\n", shellQuote(raw))

	stderr := &proc.Tail{Max: 16 << 10}
	log := &proc.SyncWriter{W: logOrDiscard(b.Log)}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir, cmd.Env = b.Dir, b.Env
	cmd.Stdout, cmd.Stderr = log, io.MultiWriter(log, stderr)
	if err := proc.Run(ctx, cmd, t.Grace); err != nil {
		return nil, fmt.Errorf("sourcing %s with bash failed: %w: %s (fix the script or the environment it needs)",
			strings.Join(scripts, ", "), err, proc.LastLines(stderr.String(), 10))
	}
	data, err := os.ReadFile(raw)
	if err != nil {
		return nil, fmt.Errorf("reading the environment the setup scripts left: %w (a setup script that calls exit ends the shell before its environment is read: make it return instead)", err)
	}
	return parseEnv0(data), nil
}

// parseEnv0 parses `env -0` output, dropping bash's own variables and
// exported functions.
func parseEnv0(data []byte) map[string]string {
	out := map[string]string{}
	for _, entry := range bytes.Split(data, []byte{0}) {
		k, v, ok := strings.Cut(string(entry), "=")
		if !ok || k == "" || shellVars[k] || strings.HasPrefix(k, "BASH_FUNC_") {
			continue
		}
		out[k] = v
	}
	return out
}

// envMap turns a K=V list into a map; a later entry wins, as in exec.
func envMap(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			out[k] = v
		}
	}
	return out
}

// changedVars keeps the variables of after that are new or differ from before.
func changedVars(before, after map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range after {
		if old, ok := before[k]; !ok || old != v {
			out[k] = v
		}
	}
	return out
}

// digest is the hash.Key of the lines "version X" and "env K=V" (sorted),
// with the output folder written as $KILN_OUT; a value holding a newline
// is escaped, so it can never pass for a line of its own.
func digest(version string, env map[string]string, dir string) string {
	k := hash.NewKey()
	k.Add("version", version)
	for _, name := range slices.Sorted(maps.Keys(env)) {
		v := env[name]
		if dir != "" {
			v = hash.ReplaceFolder(v, dir, "$KILN_OUT")
		}
		k.Add("env", name+"="+v)
	}
	return k.Sum().String()
}

func envValue(env map[string]string) cty.Value {
	if len(env) == 0 {
		return cty.MapValEmpty(cty.String)
	}
	m := make(map[string]cty.Value, len(env))
	for k, v := range env {
		m[k] = cty.StringVal(v)
	}
	return cty.MapVal(m)
}

// EnvFromAttrs returns the environment a built toolchain captured, from its
// Result.Attrs as kept in state, as a sorted K=V list.
func EnvFromAttrs(attrs map[string]string) ([]string, error) {
	raw, ok := attrs["env"]
	if !ok {
		return nil, errors.New("the toolchain record holds no captured environment: rebuild the toolchain (kiln apply)")
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		return nil, fmt.Errorf("the toolchain record's captured environment is not a JSON object of strings: %w (rebuild the toolchain)", err)
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out, nil
}

// shellQuote quotes s for bash with single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func logOrDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
