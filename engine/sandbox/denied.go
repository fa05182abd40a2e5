package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// refusals are the words a program writes beside a path it was refused.
var refusals = []string{"Permission denied", "Read-only file system", "Operation not permitted"}

// Denied are the paths a run's log lines say it was refused that the policy
// refuses (a path it may write, refused for another reason, is not one), as
// absolute paths in the order they first appear; dir is the folder the run
// started in, which relative paths are taken from.
func (p *Policy) Denied(lines []string, dir string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range lines {
		if !refused(line) {
			continue
		}
		for _, word := range strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\'' || r == '"' || r == '`' || r == '‘' || r == '’'
		}) {
			path, ok := pathIn(word, dir)
			if !ok || seen[path] || p.Writable(path) {
				continue
			}
			seen[path] = true
			out = append(out, path)
		}
	}
	return out
}

func refused(line string) bool {
	for _, r := range refusals {
		if strings.Contains(line, r) {
			return true
		}
	}
	return false
}

// pathIn reads word as the path a message names: absolute, or relative to
// dir and there (a bare word is a path only when it names a file).
func pathIn(word, dir string) (string, bool) {
	word = strings.Trim(word, ":,;()[]{}")
	switch {
	case word == "" || strings.Contains(word, "://"):
		return "", false
	case filepath.IsAbs(word):
		return filepath.Clean(word), true
	}
	path := filepath.Join(dir, word)
	if !strings.Contains(word, "/") {
		if _, err := os.Lstat(path); err != nil {
			return "", false
		}
	}
	return path, true
}
