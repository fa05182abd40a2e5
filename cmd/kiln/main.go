package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
)

// command is one kiln subcommand.
type command struct {
	name    string
	summary string
	usage   string
	run     func(env *cli, args []string) int
	// hidden commands serve the shell completion scripts; help omits them.
	hidden bool
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// cli is what commands write to and read from.
type cli struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	isTTY          bool
}

func main() {
	// kiln allocates much and briefly while it loads a large pipeline; with
	// the default GOGC a plan of 10,000 nodes spends a third of its CPU in
	// the collector. Trading some memory for that time is right for a
	// command-line tool (an apply also keeps a memory limit: heap.go). GOGC
	// in the environment still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	env := &cli{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, isTTY: isTerminal(os.Stdout)}
	stop := startProfile(os.Getenv("KILN_CPUPROFILE"), os.Getenv("KILN_MEMPROFILE"))
	code := env.main(os.Args[1:])
	stop()
	os.Exit(code)
}

func (c *cli) main(args []string) int {
	args, err := c.globalOptions(args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln:", err)
		return 1
	}
	if len(args) == 0 {
		c.usage(c.stderr)
		return 1
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		c.usage(c.stdout)
		return 0
	case "-v", "-version", "--version":
		name = "version"
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(c.stderr, "kiln: unknown command %q%s\nRun kiln help for the list of commands.\n", name, didYouMean(name, commandNames()))
		return 1
	}
	if helpAsked(cmd, args[1:]) {
		c.commandHelp(cmd)
		return 0
	}
	return cmd.run(c, args[1:])
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "kiln plans and applies content-hashed pipelines described in HCL.")
	fmt.Fprintln(w, "\nUsage: kiln [-chdir=DIR] COMMAND [flags] [PATH]\n\nCommands:")
	for _, n := range commandNames() {
		if commands[n].hidden {
			continue
		}
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nGlobal options (before or after COMMAND):\n  -chdir=DIR  run as if kiln was started in DIR")
	fmt.Fprintln(w, "\nRun kiln help COMMAND for a command's flags, kiln help KIND (exec, fetch, ...)")
	fmt.Fprintln(w, "for a node kind's attributes, kiln help language for every kind, block and")
	fmt.Fprintln(w, "function of the pipeline language.")
	fmt.Fprintln(w, "PATH is a pipeline file or a folder of *.hcl files; without one, kiln uses")
	fmt.Fprintln(w, "the current folder, or the nearest folder above it that holds *.hcl files.")
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
