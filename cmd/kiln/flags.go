package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/pool"
)

// flagSets builds each command's flag set, for parsing and for kiln help.
var flagSets = map[string]func() *flag.FlagSet{}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// pipelineArgs are the flags every command that loads a pipeline takes.
type pipelineArgs struct {
	vars     listFlag
	varFiles listFlag
	noColor  bool
	path     string
}

func (p *pipelineArgs) register(fs *flag.FlagSet) {
	fs.Var(&p.vars, "var", "set a variable: -var name=value, or one attribute of an object variable: -var name.attr=value (repeatable)")
	fs.Var(&p.varFiles, "var-file", "read variables from a file: .json, .yaml, or HCL name = value lines (repeatable)")
	fs.BoolVar(&p.noColor, "no-color", false, "do not colour the output (also: NO_COLOR=1)")
}

// varMap turns -var flags into a map, refusing malformed ones.
func (p *pipelineArgs) varMap() (map[string]string, error) {
	m := map[string]string{}
	for _, v := range p.vars {
		name, val, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("-var %q: write it as -var name=value", v)
		}
		m[name] = val
	}
	return m, nil
}

// decideArgs are every flag that changes what apply would decide. plan and
// apply share this one definition, so a scripted plan accepts exactly the
// flags of the apply that follows it, as in Terraform.
type decideArgs struct {
	pipelineArgs
	targets   listFlag
	replace   listFlag
	resources listFlag
	strict    bool
}

func (d *decideArgs) register(fs *flag.FlagSet) {
	d.pipelineArgs.register(fs)
	fs.Var(&d.targets, "target", "limit to this node and what it depends on (repeatable)")
	fs.Var(&d.replace, "replace", "rebuild this node even if it is up to date (repeatable)")
	fs.Var(&d.resources, "resource", "a resource pool: device ids (-resource npu=0-7, npu=4,5,6,7) or a count (-resource mem=64; npu=8 means ids 0-7); repeatable; default: what a host node reports and the pipeline's pool blocks")
	fs.BoolVar(&d.strict, "strict", false, "a result whose key is the one kiln.lock.hcl records but whose digest differs is an error, not a warning (also: kiln { strict_lock = true })")
}

// decision is decideArgs parsed.
type decision struct {
	targets, replace []addr.Node
	resources        map[string]pool.Given // nil: what this machine offers
	strict           bool
	// full: decide every node, the memo not consulted (the full plan
	// KILN_PLAN_VERIFY checks an answer against).
	full bool
}

func (d *decideArgs) parse() (decision, error) {
	targets, err := parseAddrs("target", d.targets)
	replace, err2 := parseAddrs("replace", d.replace)
	resources, err3 := parseResources(d.resources)
	return decision{targets: targets, replace: replace, resources: resources, strict: d.strict}, firstErr(err, err2, err3)
}

// parseResources reads the -resource values; nil when none was given.
func parseResources(list []string) (map[string]pool.Given, error) {
	if len(list) == 0 {
		return nil, nil
	}
	m := map[string]pool.Given{}
	for _, s := range list {
		name, g, err := pool.ParseResource(s)
		if err != nil {
			return nil, err
		}
		m[name] = g
	}
	return m, nil
}

// narrowed reports whether the flags select or force nodes, which the
// memo cannot answer for.
func (d decision) narrowed() bool {
	return len(d.targets) > 0 || len(d.replace) > 0 || d.resources != nil
}

func parseAddrs(flagName string, list []string) ([]addr.Node, error) {
	var out []addr.Node
	for _, s := range list {
		a, err := addr.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", flagName, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// parse parses args with fs, allowing flags after the positional path, and
// returns the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w%s (kiln help %s lists the flags)", err, flagSuggestion(fs, err), fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func onePath(pos []string, name string) (string, error) {
	switch len(pos) {
	case 0:
		return ".", nil
	case 1:
		return pos[0], nil
	}
	return "", fmt.Errorf("kiln %s takes one pipeline path, got %d: %s", name, len(pos), strings.Join(pos, " "))
}

// pathArg parses a command's flags and its one optional pipeline path,
// printing what is wrong; ok is false when the command must stop.
func (c *cli) pathArg(fs *flag.FlagSet, args []string) (path string, ok bool) {
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintf(c.stderr, "kiln %s: %v\n", fs.Name(), err)
		return "", false
	}
	if path, err = onePath(pos, fs.Name()); err != nil {
		fmt.Fprintln(c.stderr, err)
		return "", false
	}
	return path, true
}
