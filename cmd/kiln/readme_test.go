package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
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

// readmeSection returns the README's section under the heading title.
func readmeSection(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## "+title+"\n")
	if start < 0 {
		t.Fatalf("README has no %s section", title)
	}
	rest := readme[start+1:]
	if end := strings.Index(rest[1:], "\n## "); end >= 0 {
		rest = rest[:end+1]
	}
	return rest
}

// TestReadmeLayoutIsGoList: the Layout section lists every package of the
// module, one per line, and every folder it lists exists.
func TestReadmeLayoutIsGoList(t *testing.T) {
	section := readmeSection(t, "Layout")
	listed := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasSuffix(f[0], "/") || strings.HasPrefix(f[0], "`") {
			continue
		}
		dir := strings.TrimSuffix(f[0], "/")
		listed[dir] = true
		if fi, err := os.Stat(filepath.Join("../..", dir)); err != nil || !fi.IsDir() {
			t.Errorf("README's Layout lists %s/, which is not a folder", dir)
		}
	}
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			t.Fatal(err)
		}
		if rel == "." {
			continue
		}
		if !listed[filepath.ToSlash(rel)] {
			t.Errorf("go list has the package %s; README's Layout does not list %s/", rel, rel)
		}
	}
}

// TestReadmeListsDependencies: the Dependencies section names every module
// go.mod requires directly and every tool it lists.
func TestReadmeListsDependencies(t *testing.T) {
	section := readmeSection(t, "Dependencies")
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	inRequire := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		f := strings.Fields(line)
		switch {
		case line == "require (":
			inRequire = true
		case line == ")":
			inRequire = false
		case len(f) >= 2 && f[0] == "require" && f[1] != "(" && !strings.Contains(line, "// indirect"):
			want = append(want, f[1])
		case inRequire && len(f) >= 2 && !strings.Contains(line, "// indirect"):
			want = append(want, f[0])
		case len(f) == 2 && f[0] == "tool":
			// A tool is named by its module: a prefix of its package path.
			found := false
			for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(section, -1) {
				if strings.HasPrefix(f[1], m[1]+"/") {
					found = true
				}
			}
			if !found {
				t.Errorf("go.mod has the tool %s; README's Dependencies section does not name its module", f[1])
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("no direct requirements found in go.mod")
	}
	for _, m := range want {
		if !strings.Contains(section, "`"+m+"`") {
			t.Errorf("go.mod requires %s; README's Dependencies section does not say what for", m)
		}
	}
}
