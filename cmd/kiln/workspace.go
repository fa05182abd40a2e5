package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/providers"
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
		Path: path, Vars: vars, VarFiles: p.varFiles, Kinds: providers.All(),
		Targets: d.targets, Replace: d.replace, Capacity: d.capacity,
	}
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
	var files map[string]*hcl.File
	if w != nil && w.Pipeline != nil {
		files = w.Pipeline.Files
	}
	render.Diagnostics(c.stderr, files, diags, 100, c.colours(noColor).On)
}

// fail prints an error with what the user can do about it.
func (c *cli) fail(err error) {
	var de *run.DiagError
	if errors.As(err, &de) {
		render.Diagnostics(c.stderr, nil, de.Diags, 100, false)
		return
	}
	fmt.Fprintln(c.stderr, "kiln:", err)
}

// failIn is fail with the workspace's sources, so diagnostics show snippets.
func (c *cli) failIn(w *engine.Workspace, err error, noColor bool) {
	var de *run.DiagError
	if errors.As(err, &de) {
		c.diags(w, de.Diags, noColor)
		return
	}
	c.fail(err)
}

// interruptible returns a context cancelled by SIGINT or SIGTERM. A second
// signal stops kiln at once.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig, ok := <-ch
		if !ok {
			return
		}
		cancel(fmt.Errorf("interrupted (%s)", signalName(sig)))
		if _, ok := <-ch; ok {
			os.Exit(130)
		}
	}()
	return ctx, func() { signal.Stop(ch); close(ch); cancel(nil) }
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
	return engine.QuickCheck(engine.Options{Path: path, Vars: vars, VarFiles: p.varFiles})
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	if sig == syscall.SIGINT {
		return "SIGINT"
	}
	return sig.String()
}
