package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/engine/remotecache"
	"github.com/kilnbuild/kiln/engine/render"
	"golang.org/x/sys/unix"
)

// colours says whether to colour output for these flags.
// Colour is off with -no-color, NO_COLOR (any value, see no-color.org),
// TERM=dumb, or when standard output is not a terminal.
func (c *cli) colours(noColor bool) render.Colors {
	return render.Colors{On: c.isTTY && !noColor && c.getenv("NO_COLOR") == "" && c.getenv("TERM") != "dumb"}
}

// open loads a pipeline and its state, printing diagnostics. ok is false
// when the command must stop.
func (c *cli) open(p *pipelineArgs, path string, d decision) (*engine.Workspace, bool) {
	path, err := c.locate(path)
	if err != nil {
		c.fail(err)
		return nil, false
	}
	vars, err := p.varMap()
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln:", err)
		return nil, false
	}
	o := engine.Options{
		Path: path, Vars: vars, VarFiles: p.varFiles, Kinds: kinds(),
		Targets: d.targets, Replace: d.replace, Resources: d.resources, StrictLock: d.strict,
		CacheURL: c.getenv("KILN_CACHE_URL"),
		CacheAuth: remotecache.Auth{
			Token: c.getenv("KILN_CACHE_TOKEN"), Username: c.getenv("KILN_CACHE_USERNAME"), Password: c.getenv("KILN_CACHE_PASSWORD"),
		},
		CacheSigningKey: c.getenv("KILN_CACHE_SIGNING_KEY"),
	}
	if exe, err := os.Executable(); err == nil {
		o.Kiln = exe
	}
	if v := c.getenv("KILN_MAX_INSTANCES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			fmt.Fprintf(c.stderr, "kiln: KILN_MAX_INSTANCES=%q: give the most instances a dynamic for_each or count may have, a whole number like 200000\n", v)
			return nil, false
		}
		o.MaxDynamic = n
	}
	o.DebugPlan = c.debugPlan()
	o.NoMemo = d.full || c.getenv("KILN_NO_QUICK") != ""
	o.VerifyDirect = c.verifying()
	if c.getenv("KILN_DEBUG_KEY") != "" {
		var mu sync.Mutex
		o.DebugKey = func(a addr.Node, key string, lines []string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(c.stderr, "kiln: key of %s = %s\n", a, key)
			for _, l := range lines {
				fmt.Fprintf(c.stderr, "    %s\n", l)
			}
		}
	}
	w, diags, err := engine.Open(o)
	c.diags(w, diags, p.noColor)
	if err != nil {
		c.fail(err)
		return w, false
	}
	return w, !diags.HasErrors()
}

func (c *cli) diags(w *engine.Workspace, diags hcl.Diagnostics, noColor bool) {
	if len(diags) == 0 {
		return
	}
	render.Diagnostics(c.stderr, w.Files(), diags, 100, c.colours(noColor).On)
}

// fail prints an error with what the user can do about it.
func (c *cli) fail(err error) {
	err = engine.ExplainStateError(err)
	var de *engine.DiagError
	if errors.As(err, &de) {
		render.Diagnostics(c.stderr, nil, de.Diags, 100, false)
		return
	}
	fmt.Fprintln(c.stderr, "kiln:", err)
}

// failIn is fail with the workspace's sources, so diagnostics show snippets.
func (c *cli) failIn(w *engine.Workspace, err error, noColor bool) {
	var de *engine.DiagError
	if errors.As(err, &de) {
		c.diags(w, de.Diags, noColor)
		return
	}
	c.fail(err)
}

// interruptSignals end an apply the way Ctrl-C does: SIGHUP is what an SSH
// session that drops sends.
var interruptSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig syscall.Signal }

func (e interrupted) Error() string { return "interrupted (" + signalName(e.sig) + ")" }

// DetachJobs says a hang-up (a dropped SSH session) ends kiln but leaves its
// Slurm jobs running, for the next apply to adopt (run.Detacher); Ctrl-C and
// SIGTERM cancel them.
func (e interrupted) DetachJobs() bool { return e.sig == syscall.SIGHUP }

// exitCode is the shell's convention for a process ended by a signal.
func (e interrupted) exitCode() int { return 128 + int(e.sig) }

// interruptExit is the exit code of a command whose context was cancelled.
func interruptExit(ctx context.Context) int {
	var e interrupted
	if errors.As(context.Cause(ctx), &e) {
		return e.exitCode()
	}
	return 130
}

// interruptible returns a context cancelled by the first SIGINT, SIGTERM or
// SIGHUP: running nodes then get SIGTERM, and SIGKILL after their grace
// period, and the state stays consistent. A second one sends SIGKILL to every
// process group kiln started, says so, and exits at once. While it is in
// effect, a closed output pipe (SIGPIPE) no longer ends kiln with its
// children left running: writes to it fail instead.
func (c *cli) interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, interruptSignals...)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	go func() {
		for range pipe {
		}
	}()
	go func() {
		sig, ok := <-ch
		if !ok {
			return
		}
		first := interrupted{sig.(syscall.Signal)}
		cancel(first)
		sig, ok = <-ch
		if !ok {
			return
		}
		groups := proc.KillAll(syscall.SIGKILL)
		fmt.Fprintf(c.stderr, "kiln: %s again: sent SIGKILL to %s; exiting without waiting (the next apply finishes the job)\n", signalName(sig), groupsText(groups))
		os.Exit(first.exitCode())
	}()
	return ctx, func() {
		signal.Stop(ch)
		signal.Stop(pipe)
		close(ch)
		close(pipe)
		cancel(nil)
	}
}

func groupsText(groups []int) string {
	switch len(groups) {
	case 0:
		return "no process group (none was running)"
	case 1:
		return fmt.Sprintf("process group %d", groups[0])
	}
	return fmt.Sprintf("%d process groups %v", len(groups), groups)
}

// quickCheck asks the engine whether the pipeline is certainly up to date
// without loading it (see engine.QuickCheck).
func (c *cli) quickCheck(p *pipelineArgs, path string) (int, bool) {
	if c.getenv("KILN_NO_QUICK") != "" || c.getenv("KILN_DEBUG_KEY") != "" {
		return 0, false
	}
	vars, err := p.varMap()
	if err != nil {
		return 0, false
	}
	if path, err = c.locate(path); err != nil {
		return 0, false
	}
	return engine.QuickCheck(engine.Options{Path: path, Vars: vars, VarFiles: p.varFiles, DebugPlan: c.debugPlan()})
}

// quickPlan asks the engine for the plan after an edit that left the
// pipeline's configuration as the memo saw it, without loading the
// pipeline (see engine.QuickPlan); noChangesFirst: whether the pipeline
// is up to date first (engine.QuickCheckThenPlan), answered by upToDate.
// q is nil, and upToDate false, for "make the full plan".
func (c *cli) quickPlan(p *pipelineArgs, path string, noChangesFirst bool) (nodes int, upToDate bool, q *engine.QuickPlanResult) {
	if c.getenv("KILN_NO_QUICK") != "" || c.getenv("KILN_DEBUG_KEY") != "" {
		return 0, false, nil
	}
	vars, err := p.varMap()
	if err != nil {
		return 0, false, nil
	}
	if path, err = c.locate(path); err != nil {
		return 0, false, nil
	}
	o := engine.Options{Path: path, Vars: vars, VarFiles: p.varFiles, Kinds: kinds(), DebugPlan: c.debugPlan(), CacheURL: c.getenv("KILN_CACHE_URL")}
	if noChangesFirst {
		return engine.QuickCheckThenPlan(context.Background(), o)
	}
	q, _ = engine.QuickPlan(context.Background(), o)
	return 0, false, q
}

// debugPlan prints, with KILN_DEBUG_PLAN=1, why each quick answer was or
// was not used; nil otherwise.
func (c *cli) debugPlan() func(string) {
	if c.getenv("KILN_DEBUG_PLAN") == "" {
		return nil
	}
	return func(s string) { fmt.Fprintln(c.stderr, "kiln: plan: "+s) }
}

func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if name := unix.SignalName(s); name != "" {
			return name
		}
	}
	return sig.String()
}
