package slurm

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Steps returns the ids of the job's steps that still run ("36.0"),
// leaving out its batch script and extern steps.
func (c *Cluster) Steps(ctx context.Context, jobID string) ([]string, error) {
	out, err := c.run(ctx, "squeue", "-h", "-s", "-j", jobID, "-o", "%i")
	if err != nil && !invalidJob(err) {
		return nil, err
	}
	var steps []string
	for _, id := range strings.Fields(out) {
		if strings.HasSuffix(id, ".batch") || strings.HasSuffix(id, ".extern") {
			continue
		}
		steps = append(steps, id)
	}
	return steps, nil
}

// WaitSteps returns once none of the job's steps runs but its batch
// script: a command that left srun steps in the background has not
// finished writing its result until they end. Steps still running after
// grace are cancelled (scancel ID.STEP) and waited for as long again; an
// error says which are left.
func (c *Cluster) WaitSteps(ctx context.Context, jobID string, poll, grace time.Duration) error {
	if poll <= 0 {
		poll = time.Second
	}
	deadline := time.Now().Add(grace)
	cancelled := false
	for {
		steps, err := c.Steps(ctx, jobID)
		if err != nil {
			return fmt.Errorf("listing the job's steps: %w", err)
		}
		if len(steps) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if cancelled {
				return fmt.Errorf("steps %s of job %s still run after scancel", strings.Join(steps, ", "), jobID)
			}
			if err := c.Cancel(ctx, steps...); err != nil {
				return fmt.Errorf("cancelling steps %s, which outlived the command: %w", strings.Join(steps, ", "), err)
			}
			cancelled, deadline = true, time.Now().Add(grace)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(poll):
		}
	}
}
