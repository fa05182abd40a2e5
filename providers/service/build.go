package service

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/zclconf/go-cty/cty"
)

const maxAttempt = 10 * time.Second // longest single readiness request

// Sealed: the engine seals a service's process as it does exec's runs
// (engine/sandbox); its temporary folder lives in its run folder, as long
// as the process.
func (s *Service) Sealed() {}

// Build stops the previous process if any, starts the service detached,
// waits until it is ready and passes its checks, and records the process.
// On failure the new process is stopped and the error ends with the tail of
// service.log.
func (s *Service) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	s = s.withDefaults()
	cfg, err := decodeConfig(b.Config, b.Root, b.Dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Addr, err)
	}
	hash, err := configHash(b.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Addr, err)
	}
	if b.Previous != nil && b.Previous.Attrs[attrPID] != "" {
		fmt.Fprintf(b.Log, "stopping the previous process (pid %s)\n", b.Previous.Attrs[attrPID])
		if err := s.Stop(ctx, &b.Node, b.Previous); err != nil {
			return nil, err
		}
	}
	if cfg.port != 0 {
		// A process just stopped may take a moment to release its socket.
		err := checkPortFree(cfg.port)
		for wait := time.Now().Add(2 * time.Second); err != nil && b.Previous != nil && time.Now().Before(wait); {
			time.Sleep(50 * time.Millisecond)
			err = checkPortFree(cfg.port)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Addr, err)
		}
	}
	if len(b.Shell) > 0 && b.Config.GetAttr("command").Type() == cty.String {
		cfg.command = append(slices.Clone(b.Shell), cfg.command[len(cfg.command)-1])
	}
	env := environ(b.Env, cfg.env)
	logPath := filepath.Join(b.Dir, LogName)
	p, err := startDetached(cfg.command, cfg.dir, env, logPath, b.Sandbox)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Addr, err)
	}
	// Journaled before the wait for readiness, so that should kiln die
	// meanwhile the next apply or destroy stops the process. Once started,
	// the service is its record's to stop, not kiln's to kill on exit.
	defer proc.Release(proc.Started(ctx, p.pid))
	started := time.Now()
	fmt.Fprintf(b.Log, "started pid %d: %s (output in %s)\n", p.pid, strings.Join(cfg.command, " "), logPath)
	r := recorded{pid: p.pid, pgid: p.pid, startTime: p.startTime}
	if err := s.await(ctx, cfg, p, b.Log); err != nil {
		s.abandon(ctx, cfg, r, env, b.Log)
		return nil, fmt.Errorf("%s: %w\n%s", b.Addr, err, logTail(logPath, tailLines))
	}
	if err := s.runChecks(ctx, cfg, b.Log); err != nil {
		s.abandon(ctx, cfg, r, env, b.Log)
		return nil, fmt.Errorf("%s: %w", b.Addr, err)
	}
	attrs := map[string]string{
		attrPID:        strconv.Itoa(p.pid),
		attrPGID:       strconv.Itoa(p.pid),
		attrStartTime:  strconv.FormatUint(p.startTime, 10),
		attrStartedAt:  started.UTC().Format(time.RFC3339),
		attrURL:        cfg.url,
		attrLog:        logPath,
		attrConfigHash: hash,
	}
	stopAttrs(cfg, env, attrs)
	exports := s.Exports(&b.Node)
	exports["pid"] = cty.NumberIntVal(int64(p.pid))
	return &kind.Result{Digest: digest(hash), Attrs: attrs, Exports: exports}, nil
}

// digest is the service's result identity: its configuration only, so that
// a restart with the same configuration keeps dependents up to date.
func digest(configHash string) string {
	k := hash.NewKey()
	k.Add("config", configHash)
	return k.Sum().String()
}

// await polls the readiness probe until it passes, the process exits, the
// probe's timeout passes or ctx ends.
func (s *Service) await(ctx context.Context, cfg *config, p *process, log io.Writer) error {
	rp := cfg.ready
	if rp == nil {
		select {
		case <-p.exited:
			return fmt.Errorf("process %d exited (%s) right after it started", p.pid, p.exitDescription())
		default:
			return nil
		}
	}
	deadline := time.Now().Add(rp.timeout)
	tick := time.NewTicker(rp.interval)
	defer tick.Stop()
	last := ""
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, min(time.Until(deadline)+pollEvery, maxAttempt))
		err := rp.attempt(actx, s.Client)
		cancel()
		if err == nil {
			fmt.Fprintf(log, "ready after %d probe(s)\n", attempt)
			return nil
		}
		if err.Error() != last {
			fmt.Fprintf(log, "not ready yet: %v\n", err)
			last = err.Error()
		}
		select {
		case <-p.exited:
			return fmt.Errorf("process %d exited (%s) before it was ready; last probe: %v", p.pid, p.exitDescription(), err)
		case <-ctx.Done():
			return fmt.Errorf("cancelled while waiting for the service to be ready: %w", ctx.Err())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s; last probe: %v (fix the service, or raise ready.timeout if it needs longer)", rp.timeout, err)
		}
	}
}

// runChecks runs each check once, in order.
func (s *Service) runChecks(ctx context.Context, cfg *config, log io.Writer) error {
	for i, c := range cfg.checks {
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		err := c.attempt(cctx, s.Client)
		cancel()
		if err != nil {
			return fmt.Errorf("check %d failed: %w", i+1, err)
		}
		fmt.Fprintf(log, "check %d passed: %s %s\n", i+1, c.method, c.url)
	}
	return nil
}

// abandon stops a process whose start failed. After a cancellation it sends
// SIGTERM and waits the kind's grace period; otherwise it stops the process
// as configured.
func (s *Service) abandon(ctx context.Context, cfg *config, r recorded, env []string, log io.Writer) {
	if !r.running() {
		return
	}
	stop := cfg.stop
	if ctx.Err() != nil {
		stop = stopConfig{signal: syscall.SIGTERM, grace: s.Grace}
	}
	if err := stopProcess(context.WithoutCancel(ctx), r, stop, cfg.dir, env, log); err != nil {
		fmt.Fprintf(log, "%v\n", err)
		return
	}
	fmt.Fprintf(log, "stopped pid %d\n", r.pid)
}
