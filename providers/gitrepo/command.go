package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/proc"
)

// gitCommand runs one git binary with a fixed environment, writing git's
// stderr to the node's log.
type gitCommand struct {
	path  string        // absolute path of the git binary
	env   []string      // see gitEnv
	log   io.Writer     // receives stderr; never nil
	grace time.Duration // between SIGTERM and SIGKILL on cancellation
}

// quiet returns a copy of g that does not write to the log, for probes
// whose failure is an answer, not an error.
func (g *gitCommand) quiet() *gitCommand {
	q := *g
	q.log = io.Discard
	return &q
}

// commandError is a git command that ran and failed.
type commandError struct {
	Args   []string
	Dir    string
	Stderr string // the last lines git printed
	// Logged says git's stderr went to the node's log, which the failure
	// shows: the message does not quote it a second time.
	Logged bool
	Err    error
}

func (e *commandError) Error() string {
	msg := fmt.Sprintf("git %s (in %s): %v", strings.Join(e.Args, " "), e.Dir, e.Err)
	if e.Stderr != "" && !e.Logged {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *commandError) Unwrap() error { return e.Err }

// run runs git with args in dir and returns its standard output. extraEnv
// entries are added to the environment.
func (g *gitCommand) run(ctx context.Context, dir string, extraEnv []string, args ...string) ([]byte, error) {
	return g.runInput(ctx, dir, extraEnv, nil, args...)
}

// runInput is run with stdin as git's standard input.
func (g *gitCommand) runInput(ctx context.Context, dir string, extraEnv []string, stdin []byte, args ...string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	tail := &proc.Tail{Max: 4096}
	cmd := exec.Command(g.path, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), g.env...), extraEnv...)
	cmd.Stdout = &stdout
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stderr = io.MultiWriter(g.log, tail)
	err := proc.Run(ctx, cmd, g.grace)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git %s (in %s) stopped: %w", strings.Join(args, " "), dir, ctx.Err())
	case err != nil:
		return stdout.Bytes(), &commandError{Args: args, Dir: dir, Stderr: proc.LastLines(tail.String(), 6), Logged: g.log != io.Discard, Err: err}
	}
	return stdout.Bytes(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lookPath finds name in the PATH of env (not of this process), so the git
// that runs is the one the build's environment names.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if isExecutable(name) {
			return filepath.Abs(name)
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p := filepath.Join(d, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", &notFoundError{name: name, path: path}
}

// notFoundError is a program that is in no folder of the build's PATH.
type notFoundError struct{ name, path string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("%s not found in the build's PATH (%s): %s", e.name, e.path, installHint(e.name))
}

func (e *notFoundError) Unwrap() error { return exec.ErrNotFound }

// installHint says how to get a program git_repo runs.
func installHint(name string) string {
	pkg := map[string]string{"git": "git", "git-lfs": "git-lfs", "patch": "patch"}[filepath.Base(name)]
	if pkg == "" {
		return "install it or add its folder to PATH"
	}
	return fmt.Sprintf("install %s (apt-get install %s) or add its folder to PATH", filepath.Base(name), pkg)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
