package pyenv

import (
	"fmt"
	"maps"
	"slices"

	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

// config is a python_env block decoded from its cty value.
type config struct {
	Python         string
	IndexURL       string
	ExtraIndexURLs []string
	FindLinks      []string
	NoIndex        bool
	// SystemSite makes the venv with --system-site-packages: it sees the
	// interpreter's own site-packages (a vendor image's torch).
	SystemSite  bool
	Steps       []step
	Constraints []string
	Absent      []string // distributions that must not be installed
	PipCheck    string   // "error", "warn" or "off"
}

// step is one install block: one pip invocation.
type step struct {
	Requirements     []string
	Packages         []string
	Editable         []string
	Wheels           []string
	NoDeps           bool
	NoBuildIsolation bool
	Env              [][2]string // sorted by name
	ExtraArgs        []string
	Uninstall        []string // pip uninstall --yes these, instead of installing
}

var (
	stringList    = cty.List(cty.String)
	pipCheckModes = []string{"error", "warn", "off"}
)

// decodeConfig reads the decoded block. Every value must be known: Build
// runs after the engine evaluated the node against its upstream results.
func decodeConfig(v cty.Value) (config, error) {
	r := attr.Read(v)
	c := config{
		Python:         r.String("python"),
		IndexURL:       r.String("index_url"),
		ExtraIndexURLs: r.Strings("extra_index_urls"),
		FindLinks:      r.Strings("find_links"),
		NoIndex:        r.Bool("no_index"),
		SystemSite:     r.Bool("system_site_packages"),
		Constraints:    r.Strings("constraints"),
		Absent:         r.Strings("absent"),
		PipCheck:       r.String("pip_check"),
	}
	if c.Python == "" {
		c.Python = "python3"
	}
	if c.PipCheck == "" {
		c.PipCheck = "error"
	}
	for i, b := range attr.Blocks(v, "install") {
		sr := attr.ReadIn(b, fmt.Sprintf("install block %d: ", i+1))
		c.Steps = append(c.Steps, step{
			Requirements:     sr.Strings("requirements"),
			Packages:         sr.Strings("packages"),
			Editable:         sr.Strings("editable"),
			Wheels:           sr.Strings("wheels"),
			NoDeps:           sr.Bool("no_deps"),
			NoBuildIsolation: sr.Bool("no_build_isolation"),
			Env:              sortedPairs(sr.StringMap("env")),
			ExtraArgs:        sr.Strings("extra_args"),
			Uninstall:        sr.Strings("uninstall"),
		})
		if err := sr.Err(); err != nil {
			return config{}, err
		}
		if st := c.Steps[len(c.Steps)-1]; len(st.Uninstall) > 0 && (len(st.Requirements)+len(st.Packages)+len(st.Editable)+len(st.Wheels)+len(st.ExtraArgs) > 0 || st.NoDeps || st.NoBuildIsolation) {
			return config{}, fmt.Errorf("install block %d: a step that uninstalls does nothing else: move requirements, packages, editable, wheels and their options to another install block", i+1)
		}
	}
	if err := r.Err(); err != nil {
		return config{}, err
	}
	valid := false
	for _, m := range pipCheckModes {
		valid = valid || c.PipCheck == m
	}
	if !valid {
		return config{}, fmt.Errorf("pip_check = %q: use \"error\" (violations fail the build), \"warn\" (logged and kept in state) or \"off\"", c.PipCheck)
	}
	return c, nil
}

// sortedPairs are a map's entries as name/value pairs, sorted by name.
func sortedPairs(m map[string]string) [][2]string {
	var out [][2]string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, [2]string{k, m[k]})
	}
	return out
}
