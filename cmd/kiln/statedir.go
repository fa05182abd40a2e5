package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine"
)

// stateDirOf finds the state folder of a pipeline path without loading the
// pipeline, so state and logs work even when the configuration is broken.
func (c *cli) stateDirOf(path string) (string, error) {
	path, err := c.locate(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	return filepath.Join(abs, ".kiln"), nil
}

// loadState reads the state of a pipeline path without loading the
// pipeline; false, with the error printed, when it cannot.
func (c *cli) loadState(path string) (*engine.State, bool) {
	dir, err := c.stateDirOf(path)
	if err == nil {
		var s *engine.State
		if s, err = engine.LoadState(dir); err == nil {
			return s, true
		}
	}
	c.fail(err)
	return nil, false
}

// sayStateLink says on standard error where the state folder of path leads
// when it is a symbolic link that kiln accepts (state.FolderLink): the
// state, the store and the logs are then elsewhere, which whoever reads the
// plan should know. A link kiln refuses is the command's own error.
func (c *cli) sayStateLink(path string) {
	dir, err := c.stateDirOf(path)
	if err != nil {
		return
	}
	if target, err := engine.StateFolderLink(dir); err == nil && target != "" {
		fmt.Fprintf(c.stderr, "kiln: the state folder %s is a link to %s\n", dir, target)
	}
}
