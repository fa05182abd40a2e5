package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine"
)

// errNoPipeline is the answer when neither the current folder nor any
// folder above it holds a pipeline.
var errNoPipeline = errors.New("no pipeline here")

// locate resolves the pipeline path a command was given. A path the user
// named is taken as it is. The current folder (".", also the default) is
// searched upward, as git searches for .git: the nearest folder holding
// *.hcl files is the pipeline. The search stops below the folders listed in
// KILN_CEILING_DIRECTORIES (colon-separated, like GIT_CEILING_DIRECTORIES).
func (c *cli) locate(path string) (string, error) {
	if path != "." {
		return path, nil
	}
	start, err := os.Getwd()
	if err != nil {
		return "", err
	}
	ceilings := map[string]bool{}
	for _, d := range filepath.SplitList(c.getenv("KILN_CEILING_DIRECTORIES")) {
		if d != "" {
			ceilings[filepath.Clean(d)] = true
		}
	}
	for dir := start; ; {
		if holdsPipeline(dir) {
			if dir == start {
				return ".", nil
			}
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir || ceilings[parent] {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("%w: neither %s nor a folder above it holds a pipeline (*.hcl files). Write one there (a file such as pipeline.hcl with an exec block; kiln help exec shows one), or name one: kiln plan PATH, kiln -chdir=DIR plan", errNoPipeline, start)
}

// holdsPipeline reports whether dir has a *.hcl file other than a lock file.
func holdsPipeline(dir string) bool {
	_, _, err := engine.PipelineFiles(dir)
	return err == nil
}
