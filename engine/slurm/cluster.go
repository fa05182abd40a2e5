package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/nolink"
)

// Cluster runs the Slurm client commands.
type Cluster struct {
	// Env is the environment of the commands; nil means kiln's own (which
	// carries SLURM_CONF and the like).
	Env []string
}

// CommandError is a Slurm command that failed, with what it printed.
type CommandError struct {
	Command string
	Err     error
	Output  string
}

func (e *CommandError) Error() string {
	out := strings.TrimSpace(e.Output)
	if out == "" {
		return fmt.Sprintf("%s: %v", e.Command, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", e.Command, e.Err, out)
}

func (e *CommandError) Unwrap() error { return e.Err }

// Problem is err as it reads to someone waiting on a job: for a Slurm
// command that failed, the program, how it failed and what it printed,
// without its arguments (which name every job of the poll, in no set
// order). Two failures of the same kind read the same.
func Problem(err error) string {
	var ce *CommandError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	name, _, _ := strings.Cut(ce.Command, " ")
	return (&CommandError{Command: name, Err: ce.Err, Output: ce.Output}).Error()
}

func (c *Cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s not found: the Slurm executor needs Slurm's client commands on PATH (Debian: apt-get install -y slurm-client)", name)
		}
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return stdout.String(), &CommandError{Command: name + " " + strings.Join(args, " "), Err: err, Output: stderr.String() + stdout.String()}
	}
	return stdout.String(), nil
}

// Submit writes r's batch script to scriptPath and submits it with sbatch;
// it returns the job id.
func (c *Cluster) Submit(ctx context.Context, r *Request, scriptPath string) (string, error) {
	if err := r.Check(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(scriptPath), 0o755); err != nil {
		return "", err
	}
	if err := nolink.WriteFile(scriptPath, []byte(r.Script()), 0o755); err != nil {
		return "", err
	}
	out, err := c.run(ctx, "sbatch", append(r.Args(), scriptPath)...)
	if err != nil {
		return "", err
	}
	// --parsable prints "ID" or "ID;CLUSTER".
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if id == "" || strings.ContainsAny(id, " \n") {
		return "", fmt.Errorf("sbatch printed %q, not a job id", out)
	}
	return id, nil
}

// Cancel asks Slurm to cancel the jobs (scancel). It does not wait.
func (c *Cluster) Cancel(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := c.run(ctx, "scancel", ids...)
	return err
}

// Query returns the status of each job: from squeue while the controller
// remembers it, from sacct otherwise, and State Unknown when neither knows
// it.
func (c *Cluster) Query(ctx context.Context, ids []string) (map[string]Status, error) {
	got := map[string]Status{}
	if len(ids) == 0 {
		return got, nil
	}
	out, err := c.run(ctx, "squeue", "-h", "-r", "-t", "all", "-j", strings.Join(ids, ","), "-O", squeueFormat)
	if err != nil && !invalidJob(err) {
		return nil, err
	}
	for id, s := range parseSqueue(out) {
		got[id] = s
	}
	var missing []string
	for _, id := range ids {
		if _, ok := got[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return got, nil
	}
	// sacct fails without accounting storage: then the jobs are unknown.
	if out, err := c.run(ctx, "sacct", "-n", "-P", "-X", "-j", strings.Join(missing, ","), "-o", sacctFormat); err == nil {
		for id, s := range parseSacct(out) {
			got[id] = s
		}
	} else if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	for _, id := range missing {
		if _, ok := got[id]; !ok {
			got[id] = Status{ID: id, State: Unknown}
		}
	}
	return got, nil
}

// invalidJob reports squeue's answer when none of the ids is known.
func invalidJob(err error) bool {
	var ce *CommandError
	return errors.As(err, &ce) && strings.Contains(ce.Output, "Invalid job id")
}
