package pyenv

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
)

// maxIncludeDepth bounds how deep -r / -c includes of requirements files
// are followed.
const maxIncludeDepth = 16

// keyFiles lists the local requirements files, the files they include and
// the local wheels of a node, sorted and without duplicates. Values not yet
// known at plan time are skipped; they come from upstream nodes.
func keyFiles(n *kind.Node) []string {
	seen := map[string]bool{}
	var files []string
	add := func(p string) bool {
		if under(p, n.State) || seen[p] {
			return false
		}
		seen[p] = true
		files = append(files, p)
		return true
	}
	var follow func(p string, depth int)
	follow = func(p string, depth int) {
		if !add(p) || depth >= maxIncludeDepth {
			return
		}
		for _, inc := range includes(p) {
			follow(resolve(filepath.Dir(p), inc), depth+1)
		}
	}
	for _, block := range attr.Blocks(n.Config, "install") {
		if !block.Type().IsObjectType() {
			continue
		}
		for _, r := range attr.KnownStrings(block, "requirements") {
			follow(resolve(n.Root, r), 0)
		}
		for _, w := range attr.KnownStrings(block, "wheels") {
			matches, _ := filepath.Glob(resolve(n.Root, w))
			for _, m := range matches {
				add(m)
			}
		}
	}
	sort.Strings(files)
	return files
}

// includes are the files a requirements file names with -r/--requirement or
// -c/--constraint, as written. Lines with environment variables or URLs are
// left out: pip expands them at build time.
func includes(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil // the engine reports the missing file when it hashes it
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		var target string
		switch opt := fields[0]; {
		case (opt == "-r" || opt == "--requirement" || opt == "-c" || opt == "--constraint") && len(fields) > 1:
			target = fields[1]
		case strings.HasPrefix(opt, "--requirement="), strings.HasPrefix(opt, "--constraint="):
			_, target, _ = strings.Cut(opt, "=")
		case len(opt) > 2 && (strings.HasPrefix(opt, "-r") || strings.HasPrefix(opt, "-c")) && opt[2] != '-':
			target = opt[2:]
		}
		if target != "" && !strings.Contains(target, "$") && !strings.Contains(target, "://") {
			out = append(out, target)
		}
	}
	return out
}
