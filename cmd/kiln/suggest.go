package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
)

// didYouMean returns "; did you mean X?" for the option closest to s
// (human.Closest), or "" when none is close.
func didYouMean(s string, options []string) string {
	if best := human.Closest(s, options); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// flagSuggestion turns the flag package's "flag provided but not defined:
// -tagret" into a sentence with the closest flag of fs.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return ""
	}
	name := strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if best := human.Closest(name, names); best != "" {
		return fmt.Sprintf("; did you mean -%s?", best)
	}
	return ""
}
