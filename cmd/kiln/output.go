package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
)

type outputArgs struct {
	pipelineArgs
	json, raw bool
}

func outputFlags() (*flag.FlagSet, *outputArgs) {
	a := &outputArgs{}
	fs := flag.NewFlagSet("output", flag.ContinueOnError)
	a.pipelineArgs.register(fs)
	fs.BoolVar(&a.json, "json", false, "print as JSON: every output with its type and sensitivity, or NAME's value (sensitive values included)")
	fs.BoolVar(&a.raw, "raw", false, "print NAME's value as plain text without a newline (strings, numbers and bools), for scripts (sensitive values included)")
	return fs, a
}

func init() {
	flagSets["output"] = func() *flag.FlagSet { fs, _ := outputFlags(); return fs }
	register(&command{name: "output", summary: "print the pipeline's outputs", usage: "kiln output [-json | -raw] [NAME] [-- PATH]", run: runOutput})
}

func runOutput(c *cli, args []string) int {
	fs, a := outputFlags()
	args, path := splitPathAfterDashes(args)
	pos, err := parse(fs, args)
	if err == nil && len(pos) > 1 {
		err = fmt.Errorf("give at most one output name, got %d (a pipeline path goes after --)", len(pos))
	}
	if err == nil && a.json && a.raw {
		err = fmt.Errorf("-json and -raw exclude each other")
	}
	if err == nil && a.raw && len(pos) == 0 {
		err = fmt.Errorf("-raw prints one output: kiln output -raw NAME")
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln output:", err)
		return 1
	}
	w, ok := c.open(&a.pipelineArgs, path, decision{})
	if !ok {
		return 1
	}
	outs, diags := w.Outputs()
	c.diags(w, diags, a.noColor)
	if diags.HasErrors() {
		return 1
	}
	vals := outputValues(outs)
	if len(pos) == 0 {
		if a.json {
			m, err := render.OutputsJSON(vals)
			if err != nil {
				c.fail(err)
				return 1
			}
			writeJSON(c, m)
			return 0
		}
		if len(vals) == 0 {
			fmt.Fprintln(c.stderr, "The pipeline declares no outputs (an output \"NAME\" { value = ... } block adds one).")
			return 0
		}
		render.OutputsText(c.stdout, vals)
		return 0
	}
	o, ok := findOutput(vals, pos[0])
	if !ok {
		var names []string
		for _, v := range vals {
			names = append(names, v.Name)
		}
		fmt.Fprintf(c.stderr, "kiln output: the pipeline has no output %q%s\n", pos[0], didYouMean(pos[0], names))
		return 1
	}
	switch {
	case a.raw:
		s, err := render.OutputRaw(o)
		if err != nil {
			fmt.Fprintf(c.stderr, "kiln output: %s: %v\n", o.Name, err)
			return 1
		}
		fmt.Fprint(c.stdout, s)
	case a.json:
		b, err := render.OutputValueJSON(o)
		if err != nil {
			fmt.Fprintf(c.stderr, "kiln output: %s: %v\n", o.Name, err)
			return 1
		}
		fmt.Fprintln(c.stdout, string(b))
	default:
		render.OutputsText(c.stdout, []render.OutputValue{o})
	}
	return 0
}

func outputValues(outs []engine.Output) []render.OutputValue {
	vals := make([]render.OutputValue, len(outs))
	for i, o := range outs {
		vals[i] = render.OutputValue{Name: o.Name, Value: o.Val, Sensitive: o.Sensitive, Pending: o.Pending}
	}
	return vals
}

func findOutput(vals []render.OutputValue, name string) (render.OutputValue, bool) {
	for _, v := range vals {
		if v.Name == name {
			return v, true
		}
	}
	return render.OutputValue{}, false
}

// splitPathAfterDashes takes "-- PATH" off the end of args, for commands
// whose positional arguments are not paths. The path defaults to ".".
func splitPathAfterDashes(args []string) ([]string, string) {
	for i, a := range args {
		if a == "--" && i+2 == len(args) {
			return args[:i], args[i+1]
		}
	}
	return args, "."
}

func writeJSON(c *cli, v any) {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
