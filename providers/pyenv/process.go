package pyenv

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/proc"
)

// command is one process the kind starts.
type command struct {
	Path   string
	Args   []string
	Env    []string
	Dir    string
	Stdout io.Writer // nil: the log
	Log    io.Writer // stderr, and stdout unless Stdout is set
}

// run starts c in its own process group and waits for it. When ctx ends,
// the group gets SIGTERM and, grace later, SIGKILL. The error says which
// command failed and how.
func run(ctx context.Context, c command, grace time.Duration) error {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = c.Env
	cmd.Dir = c.Dir
	cmd.Stdout = c.Log
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	cmd.Stderr = c.Log
	err := proc.Run(ctx, cmd, grace)
	if ctx.Err() != nil {
		return fmt.Errorf("%s stopped: %w", describeCommand(c), ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", describeCommand(c), err)
	}
	return nil
}

// output runs c and returns its standard output; standard error goes to log.
func output(ctx context.Context, c command, grace time.Duration) ([]byte, error) {
	var out bytes.Buffer
	c.Stdout = &out
	err := run(ctx, c, grace)
	return out.Bytes(), err
}

func describeCommand(c command) string {
	return strings.Join(append([]string{c.Path}, c.Args...), " ")
}
