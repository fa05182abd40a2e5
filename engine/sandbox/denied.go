package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// refusals are the words a program writes beside a path it was refused.
var refusals = []string{"Permission denied", "Read-only file system", "Operation not permitted"}

// Denial is a path a run was refused.
type Denial struct {
	Path string // absolute, as the program named it
	Real string // with the links of the folders above it followed, as the kernel checked it
}

// Denied are the paths a run's log lines say it was refused that the policy
// refuses (a path it may write, refused for another reason, is not one), in
// the order they first appear; dir is the folder the run started in, which
// relative paths are taken from.
func (p *Policy) Denied(lines []string, dir string) []Denial {
	var out []Denial
	seen := map[string]bool{}
	for _, line := range lines {
		if !Refused(line) {
			continue
		}
		words := strings.FieldsFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\'' || r == '"' || r == '`' || r == '‘' || r == '’'
		})
		if len(words) > 1 && words[1] == "line" {
			words = words[1:] // a shell's own name: "/usr/bin/bash: line 1: PATH: Permission denied"
		}
		named := refusedName(line)
		for _, word := range words {
			path, ok := pathIn(word, dir, word == named)
			if !ok {
				continue
			}
			if path = p.View.Host(path); seen[path] {
				continue
			}
			real := resolved(path)
			if p.Writable(real) {
				continue
			}
			seen[path] = true
			out = append(out, Denial{Path: path, Real: real})
		}
	}
	return out
}

// Refused reports whether a line of a run's output reads as a refusal.
func Refused(line string) bool {
	for _, r := range refusals {
		if strings.Contains(line, r) {
			return true
		}
	}
	return false
}

// refusedName is the word right before the refusal in line ("NAME:
// Permission denied"), which names what was refused even when it is a bare
// name that does not exist (a file the run was not let create).
func refusedName(line string) string {
	for _, r := range refusals {
		if i := strings.Index(line, ": "+r); i >= 0 {
			f := strings.Fields(line[:i])
			if len(f) > 0 {
				return f[len(f)-1] + ":"
			}
		}
	}
	return ""
}

// pathIn reads word as the path a message names: absolute, or relative to
// dir and there (a bare word is a path only when it names a file, or when
// named says the message names it).
func pathIn(word, dir string, named bool) (string, bool) {
	word = strings.Trim(word, ":,;()[]{}")
	switch {
	case word == "" || strings.Contains(word, "://"):
		return "", false
	case filepath.IsAbs(word):
		return filepath.Clean(word), true
	}
	path := filepath.Join(dir, word)
	if !strings.Contains(word, "/") && !named {
		if _, err := os.Lstat(path); err != nil {
			return "", false
		}
	}
	return path, true
}

// resolved is path with the links of the folders above it followed, as the
// kernel checked it: a write through a link into another folder is refused
// there.
func resolved(path string) string {
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return path
	}
	return filepath.Join(parent, filepath.Base(path))
}
