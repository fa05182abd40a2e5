package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestBadInputTableNamesRealScripts: every script docs/bad-input.md says
// pins a row is one of testdata/script, so the table cannot point at a test
// that is gone.
func TestBadInputTableNamesRealScripts(t *testing.T) {
	b, err := os.ReadFile("../../docs/bad-input.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| .* \| ([^|]+) \|$`)
	script := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	n := 0
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		for _, name := range strings.Split(m[1], ", ") {
			name = strings.TrimSpace(name)
			if !script.MatchString(name) {
				continue // a Go test, named with its package
			}
			n++
			if _, err := os.Stat("testdata/script/" + name + ".txtar"); err != nil {
				t.Errorf("docs/bad-input.md: %s pins a row, but there is no testdata/script/%s.txtar", name, name)
			}
		}
	}
	if n < 20 {
		t.Errorf("docs/bad-input.md names %d scripts; the table is not read right", n)
	}
}
