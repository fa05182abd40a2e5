package main

import (
	"flag"
	"strings"
)

// commandLine is how a command names itself where others read it — the
// apply lock's holder, run records: the flags it was given by name only,
// never their values (a -var may carry a token), and its positional
// arguments (the pipeline path, node addresses).
func commandLine(fs *flag.FlagSet, pos []string) string {
	parts := []string{"kiln", fs.Name()}
	fs.Visit(func(f *flag.Flag) { parts = append(parts, "-"+f.Name) })
	return strings.Join(append(parts, pos...), " ")
}
