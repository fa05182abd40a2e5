package pyenv

import (
	"fmt"
	"path/filepath"
	"strings"
)

// indexArgs are the pip options every install step shares.
func (c config) indexArgs(root string) []string {
	var args []string
	if c.IndexURL != "" {
		args = append(args, "--index-url", c.IndexURL)
	}
	for _, u := range c.ExtraIndexURLs {
		args = append(args, "--extra-index-url", u)
	}
	for _, l := range c.FindLinks {
		args = append(args, "--find-links", resolveLocation(root, l))
	}
	if c.NoIndex {
		args = append(args, "--no-index")
	}
	return args
}

// pipArgs is the pip command line of one step after "python -m".
func (s step) pipArgs(c config, root string) ([]string, error) {
	if len(s.Uninstall) > 0 {
		// A distribution that is not installed is skipped, with a warning.
		return append([]string{"pip", "uninstall", "--disable-pip-version-check", "--no-input", "--yes"}, s.Uninstall...), nil
	}
	args := []string{"pip", "install", "--disable-pip-version-check", "--no-input"}
	args = append(args, c.indexArgs(root)...)
	if s.NoDeps {
		args = append(args, "--no-deps")
	}
	if s.NoBuildIsolation {
		args = append(args, "--no-build-isolation")
	}
	args = append(args, s.ExtraArgs...)
	n := 0
	for _, r := range s.Requirements {
		args = append(args, "-r", resolve(root, r))
		n++
	}
	for _, p := range s.Packages {
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
			p = resolve(root, p)
		}
		args = append(args, p)
		n++
	}
	for _, e := range s.Editable {
		args = append(args, "-e", resolveLocation(root, e))
		n++
	}
	for _, pattern := range s.Wheels {
		matches, err := filepath.Glob(resolve(root, pattern))
		if err != nil {
			return nil, fmt.Errorf("wheels pattern %q: %w", pattern, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("wheels pattern %q matches no file; check that the node producing the wheels ran and the pattern is right", pattern)
		}
		args = append(args, matches...) // Glob sorts
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("nothing to install: set requirements, packages, editable or wheels")
	}
	return args, nil
}

// label names a step by its first requirement, package, editable project
// or wheel pattern, as reports refer to it: relative paths as written,
// absolute ones by their last element (two when it is a glob).
func (s step) label() string {
	if len(s.Uninstall) > 0 {
		return "uninstall " + strings.Join(s.Uninstall, " ")
	}
	for _, list := range [][]string{s.Requirements, s.Packages, s.Editable, s.Wheels} {
		if len(list) == 0 {
			continue
		}
		p := list[0]
		if !filepath.IsAbs(p) {
			return p
		}
		if base := filepath.Base(p); strings.ContainsAny(base, "*?[") {
			return filepath.Join(filepath.Base(filepath.Dir(p)), base)
		} else {
			return base
		}
	}
	return "(empty)"
}

// resolveLocation resolves a local path against the pipeline folder and
// leaves URLs (https://..., git+https://..., file://...) alone.
func resolveLocation(root, loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	return resolve(root, loc)
}
