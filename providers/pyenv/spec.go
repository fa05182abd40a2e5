package pyenv

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty"
)

// config is a python_env block decoded from its cty value.
type config struct {
	Python         string
	IndexURL       string
	ExtraIndexURLs []string
	FindLinks      []string
	NoIndex        bool
	Steps          []step
	Constraints    []string
	Absent         []string // distributions that must not be installed
	PipCheck       string   // "error", "warn" or "off"
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
	r := reader{obj: v}
	c := config{
		Python:         r.str("python"),
		IndexURL:       r.str("index_url"),
		ExtraIndexURLs: r.strs("extra_index_urls"),
		FindLinks:      r.strs("find_links"),
		NoIndex:        r.boolean("no_index"),
		Constraints:    r.strs("constraints"),
		Absent:         r.strs("absent"),
		PipCheck:       r.str("pip_check"),
	}
	if c.Python == "" {
		c.Python = "python3"
	}
	if c.PipCheck == "" {
		c.PipCheck = "error"
	}
	for i, b := range r.blocks("install") {
		sr := reader{obj: b, prefix: fmt.Sprintf("install block %d: ", i+1)}
		c.Steps = append(c.Steps, step{
			Requirements:     sr.strs("requirements"),
			Packages:         sr.strs("packages"),
			Editable:         sr.strs("editable"),
			Wheels:           sr.strs("wheels"),
			NoDeps:           sr.boolean("no_deps"),
			NoBuildIsolation: sr.boolean("no_build_isolation"),
			Env:              sr.strMap("env"),
			ExtraArgs:        sr.strs("extra_args"),
			Uninstall:        sr.strs("uninstall"),
		})
		if sr.err != nil {
			return config{}, sr.err
		}
		if st := c.Steps[len(c.Steps)-1]; len(st.Uninstall) > 0 && (len(st.Requirements)+len(st.Packages)+len(st.Editable)+len(st.Wheels)+len(st.ExtraArgs) > 0 || st.NoDeps || st.NoBuildIsolation) {
			return config{}, fmt.Errorf("install block %d: a step that uninstalls does nothing else: move requirements, packages, editable, wheels and their options to another install block", i+1)
		}
	}
	if r.err != nil {
		return config{}, r.err
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

// reader takes attributes out of a cty object and remembers the first
// problem, so decoding reads as a list of fields.
type reader struct {
	obj    cty.Value
	prefix string
	err    error
}

func (r *reader) attr(name string) cty.Value {
	if r.err != nil || r.obj.IsNull() || !r.obj.Type().IsObjectType() || !r.obj.Type().HasAttribute(name) {
		return cty.NullVal(cty.DynamicPseudoType)
	}
	v := r.obj.GetAttr(name)
	if !v.IsWhollyKnown() {
		r.err = fmt.Errorf("%s%s is not known yet; it must not depend on values only a later build produces", r.prefix, name)
		return cty.NullVal(cty.DynamicPseudoType)
	}
	return v
}

func (r *reader) str(name string) string {
	v := r.attr(name)
	if v.IsNull() || v.Type() != cty.String {
		return ""
	}
	return v.AsString()
}

func (r *reader) boolean(name string) bool {
	v := r.attr(name)
	return !v.IsNull() && v.Type() == cty.Bool && v.True()
}

func (r *reader) strs(name string) []string {
	v := r.attr(name)
	if v.IsNull() || !v.CanIterateElements() {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			r.err = fmt.Errorf("%s%s: every element must be a string", r.prefix, name)
			return nil
		}
		out = append(out, e.AsString())
	}
	return out
}

func (r *reader) strMap(name string) [][2]string {
	v := r.attr(name)
	if v.IsNull() || !v.CanIterateElements() {
		return nil
	}
	var out [][2]string
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			r.err = fmt.Errorf("%s%s[%q]: must be a string", r.prefix, name, k.AsString())
			return nil
		}
		out = append(out, [2]string{k.AsString(), e.AsString()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func (r *reader) blocks(name string) []cty.Value {
	v := r.attr(name)
	if v.IsNull() || !v.CanIterateElements() {
		return nil
	}
	var out []cty.Value
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		out = append(out, e)
	}
	return out
}
