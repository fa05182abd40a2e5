package pyenv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// inspectScript prints what the venv holds as JSON: the interpreter's
// version, its purelib folder and every installed distribution. It runs
// with -I so neither PYTHONPATH nor the working folder adds to sys.path.
const inspectScript = `import json, sys, sysconfig
import importlib.metadata as m
d = [[x.metadata["Name"] or "", x.version or ""] for x in m.distributions()]
print(json.dumps({"version": sys.version, "purelib": sysconfig.get_paths()["purelib"], "dists": d}))`

// venvState is one look at a venv.
type venvState struct {
	Version string      `json:"version"`
	Purelib string      `json:"purelib"`
	Dists   [][2]string `json:"dists"`
}

// venv runs Python and pip inside one venv.
type venv struct {
	dir   string
	env   []string
	log   io.Writer
	grace time.Duration
}

func (v venv) python() string { return filepath.Join(v.dir, "bin", "python") }

func (v venv) command(args ...string) command {
	return command{Path: v.python(), Args: args, Env: v.env, Dir: v.dir, Log: v.log}
}

func (v venv) inspect(ctx context.Context) (venvState, error) {
	out, err := output(ctx, v.command("-I", "-c", inspectScript), v.grace)
	if err != nil {
		return venvState{}, fmt.Errorf("list installed distributions (Python 3.8 or newer is needed): %w", err)
	}
	var s venvState
	if err := json.Unmarshal(out, &s); err != nil {
		return venvState{}, fmt.Errorf("read the list of installed distributions from %s: %w", v.python(), err)
	}
	return s, nil
}

// freeze is `pip freeze --all` as sorted entries. pip writes a comment
// before an editable install without version control that holds its name
// and version; it is kept on the entry's line, so sorting keeps them together.
func (v venv) freeze(ctx context.Context) ([]string, error) {
	out, err := output(ctx, v.command("-I", "-m", "pip", "freeze", "--all", "--disable-pip-version-check"), v.grace)
	if err != nil {
		return nil, fmt.Errorf("pip freeze: %w", err)
	}
	var entries []string
	comment := ""
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "#"):
			comment = line
		default:
			if comment != "" {
				line += "  " + comment
				comment = ""
			}
			entries = append(entries, line)
		}
	}
	sort.Strings(entries)
	return entries, nil
}

// check is `pip check`: the complaints, none when the venv is consistent.
func (v venv) check(ctx context.Context) ([]string, error) {
	out, err := output(ctx, v.command("-I", "-m", "pip", "check", "--disable-pip-version-check"), v.grace)
	var complaints []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && line != "No broken requirements found." {
			complaints = append(complaints, line)
		}
	}
	if err != nil && (len(complaints) == 0 || ctx.Err() != nil) {
		return nil, fmt.Errorf("pip check: %w", err)
	}
	return complaints, nil
}
