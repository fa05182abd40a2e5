package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLanguageDocIsCurrent fails when docs/language.md is not what the
// schemas and the template produce: run go generate ./docs/generate.
func TestLanguageDocIsCurrent(t *testing.T) {
	var got bytes.Buffer
	if err := write(&got); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../language.md")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("docs/language.md is stale: run go generate ./docs/generate (-committed +generated):\n%s", diff)
	}
}
