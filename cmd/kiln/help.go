package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
	"github.com/kilnbuild/kiln/engine/schema"
)

func init() {
	register(&command{name: "help", summary: "show help for a command, a node kind, a block or a function",
		usage: "kiln help [COMMAND | KIND | BLOCK | FUNCTION | language | functions]", run: runHelp})
}

// languageReference is the pipeline language as this kiln knows it: the
// same schemas the loader decodes with.
func languageReference() *schema.Reference { return engine.Reference(kinds()) }

func runHelp(c *cli, args []string) int {
	if len(args) == 0 {
		c.usage(c.stdout)
		return 0
	}
	if len(args) > 1 {
		fmt.Fprintln(c.stderr, "kiln help: name one topic, e.g. kiln help plan or kiln help exec")
		return 1
	}
	topic := args[0]
	ref := languageReference()
	found := false
	if cmd, ok := commands[topic]; ok && !cmd.hidden {
		c.commandHelp(cmd)
		found = true
	}
	switch topic {
	case "language":
		render.LanguageHelp(c.stdout, ref)
		return 0
	case "functions":
		for i, f := range ref.Functions {
			if i > 0 {
				fmt.Fprintln(c.stdout)
			}
			render.FunctionHelp(c.stdout, &f)
		}
		return 0
	}
	if b := ref.Block(topic); b != nil {
		if found {
			fmt.Fprintf(c.stdout, "\nThe %s block:\n\n", topic)
		}
		render.BlockHelp(c.stdout, ref, b)
		return 0
	}
	if f := ref.Function(topic); f != nil {
		render.FunctionHelp(c.stdout, f)
		return 0
	}
	if found {
		return 0
	}
	fmt.Fprintf(c.stderr, "kiln help: no command, block or function %q%s\nkiln help lists the commands, kiln help language the kinds, blocks and functions.\n", topic, didYouMean(topic, helpTopics(ref)))
	return 1
}

// helpAsked reports whether args ask for the command's help (-h, -help or
// --help, where the command's flags are read), which is then printed to
// stdout with exit status 0, as every CLI does. The hidden commands serve
// scripts and take no help flag.
func helpAsked(cmd *command, args []string) bool {
	if cmd.hidden {
		return false
	}
	if mk := flagSets[cmd.name]; mk != nil {
		_, err := parse(mk(), args)
		return errors.Is(err, flag.ErrHelp)
	}
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

func (c *cli) commandHelp(cmd *command) {
	fmt.Fprintf(c.stdout, "%s\n\n%s\n", cmd.summary, cmd.usage)
	if mk := flagSets[cmd.name]; mk != nil {
		fs := mk()
		fs.SetOutput(c.stdout)
		fmt.Fprintln(c.stdout, "\nFlags:")
		fs.PrintDefaults()
	}
	fmt.Fprintln(c.stdout, "\nEvery command also takes -chdir=DIR.")
}

func helpTopics(ref *schema.Reference) []string {
	topics := []string{"language", "functions", "meta-arguments"}
	topics = append(topics, commandNames()...)
	for _, b := range append(append([]*schema.Block(nil), ref.Kinds...), ref.Blocks...) {
		topics = append(topics, b.Name)
	}
	for _, f := range ref.Functions {
		topics = append(topics, f.Name)
	}
	return topics
}
