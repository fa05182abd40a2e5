package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyKindsGoNamesProviders: the CLI reaches node kinds through the
// engine; it imports the providers package in kinds.go alone, and no
// provider package anywhere.
func TestOnlyKindsGoNamesProviders(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	const providers = "github.com/kilnbuild/kiln/providers"
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case strings.HasPrefix(path, providers+"/"):
				t.Errorf("%s imports the provider package %s: ask the engine, or add an interface to engine/kind", name, path)
			case path == providers && name != "kinds.go":
				t.Errorf("%s imports %s: call kinds() instead", name, path)
			}
		}
	}
}
