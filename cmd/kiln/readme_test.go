package main

import (
	"flag"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestReadmeAgreesWithHelp: the README's command table lists exactly the
// commands kiln help lists, and every flag it names for a command is one
// that command takes.
func TestReadmeAgreesWithHelp(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "## Commands")
	end := strings.Index(readme[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("README has no Commands section")
	}
	section := readme[start : start+1+end]
	row := regexp.MustCompile(`(?m)^\| (.*?) \| (.*) \|$`)
	cmdRE := regexp.MustCompile("`kiln ([a-z]+)([^`]*)`")
	flagRE := regexp.MustCompile("(?:^|[\\s(`])(-[a-z][a-z-]*)")
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		for _, c := range cmdRE.FindAllStringSubmatch(m[1], -1) {
			name := c[1]
			documented[name] = true
			cmd, ok := commands[name]
			if !ok || cmd.hidden {
				t.Errorf("README lists kiln %s, which kiln help does not", name)
				continue
			}
			flags := map[string]bool{"-chdir": true}
			if mk := flagSets[name]; mk != nil {
				mk().VisitAll(func(f *flag.Flag) { flags["-"+f.Name] = true })
			}
			for _, f := range flagRE.FindAllStringSubmatch(c[2]+" "+m[2], -1) {
				if !flags[f[1]] {
					t.Errorf("README says kiln %s takes %s; kiln help %s does not list it", name, f[1], name)
				}
			}
		}
	}
	var missing []string
	for _, name := range commandNames() {
		if !commands[name].hidden && !documented[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("kiln help lists commands the README's table does not: %s", strings.Join(missing, ", "))
	}
}
