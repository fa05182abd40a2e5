package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// The meta-arguments env_prepend and env_append extend a variable of the
// environment a node's processes get from the host and its toolchain
// (PATH, PYTHONPATH, LD_LIBRARY_PATH, ASCEND_*) instead of replacing it:
//
//	env_prepend = { PYTHONPATH = [git_repo.verl.out] }
//	env_append  = { LD_LIBRARY_PATH = "${var.toolkit}/latest/devlib" }
//
// Each value is a path or a list of paths, joined with ":" and put before
// (prepend) or after (append) the variable's value; a variable that is not
// set gets the paths alone, and empty paths are left out, so no empty list
// element (which means the working folder) appears. Both enter the key as
// attribute lines, so an edit shows in plan, explain and diff. A variable
// that a kind's own env attribute sets outright cannot be extended as well.
var envExtensionArgs = []string{"env_prepend", "env_append"}

// envExtension evaluates env_prepend or env_append to a map of lists of
// strings; a value not known yet stays unknown.
func envExtension(a *hcl.Attribute, ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	bad := func(detail string) (cty.Value, hcl.Diagnostics) {
		return cty.NilVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name,
			Detail: a.Name + " " + detail + `, like { PYTHONPATH = [git_repo.verl.out] }.`, Subject: a.Expr.Range().Ptr()}}
	}
	if v.IsNull() {
		return cty.NullVal(cty.Map(cty.List(cty.String))), nil
	}
	if !v.IsKnown() {
		return cty.UnknownVal(cty.Map(cty.List(cty.String))), nil
	}
	if t := v.Type(); !t.IsObjectType() && !t.IsMapType() {
		return bad("maps a variable's name to a path or a list of paths")
	}
	out := map[string]cty.Value{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		name := k.AsString()
		if !validEnvName(name) {
			return bad(fmt.Sprintf("names %q, which is not a variable name (letters, digits and _, not starting with a digit)", name))
		}
		if e.Type() == cty.String || e.Type() == cty.DynamicPseudoType {
			e = cty.TupleVal([]cty.Value{e})
		}
		l, err := convertTo(e, cty.List(cty.String))
		if err != nil || l.IsNull() {
			return bad(fmt.Sprintf("gives %s a value that is neither a path nor a list of paths", name))
		}
		if l.IsKnown() {
			for it := l.ElementIterator(); it.Next(); {
				if _, x := it.Element(); x.IsNull() {
					return bad(fmt.Sprintf("gives %s a null path", name))
				}
			}
		}
		out[name] = l
	}
	if len(out) == 0 {
		return cty.NullVal(cty.Map(cty.List(cty.String))), nil
	}
	return cty.MapVal(out), nil
}

// envConflicts reports a variable that the kind's own env attribute sets
// and env_prepend or env_append extends: one would silently win.
func envConflicts(n *Node, cfg cty.Value, ext map[string]cty.Value) hcl.Diagnostics {
	if len(ext) == 0 {
		return nil
	}
	cfg, _ = cfg.UnmarkDeep()
	if cfg.IsNull() || !cfg.IsKnown() || !cfg.Type().IsObjectType() || !cfg.Type().HasAttribute("env") {
		return nil
	}
	env := cfg.GetAttr("env")
	if env.IsNull() || !env.IsKnown() || !(env.Type().IsMapType() || env.Type().IsObjectType()) {
		return nil
	}
	var diags hcl.Diagnostics
	for _, arg := range envExtensionArgs {
		v, ok := ext[arg]
		if !ok || v.IsNull() || !v.IsKnown() {
			continue
		}
		for it := v.ElementIterator(); it.Next(); {
			k, _ := it.Element()
			name := k.AsString()
			if env.Type().IsObjectType() && !env.Type().HasAttribute(name) || env.Type().IsMapType() && !env.HasIndex(k).True() {
				continue
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Variable both set and extended",
				Detail:  fmt.Sprintf("env sets %s outright and %s extends it; env replaces the value the host and the toolchain give, %s adds to it: keep one.", name, arg, arg),
				Subject: n.AttrRange(arg).Ptr()})
		}
	}
	return diags
}

// EnvExtensions are the evaluated env_prepend and env_append of a node, as
// paths per variable name; nil when unset.
func (e *Evaluated) EnvExtensions() (prepend, appended map[string][]string) {
	return envPaths(e.Extensions["env_prepend"]), envPaths(e.Extensions["env_append"])
}

// ExtensionsKnown reports whether env_prepend and env_append are known.
func (e *Evaluated) ExtensionsKnown() bool {
	for _, v := range e.Extensions {
		if !v.IsWhollyKnown() {
			return false
		}
	}
	return true
}

func envPaths(v cty.Value) map[string][]string {
	if v == cty.NilVal || v.IsNull() || !v.IsWhollyKnown() {
		return nil
	}
	out := map[string][]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, l := it.Element()
		var paths []string
		for li := l.ElementIterator(); li.Next(); {
			_, x := li.Element()
			x, _ = x.Unmark()
			if s := x.AsString(); s != "" {
				paths = append(paths, s)
			}
		}
		out[k.AsString()] = paths
	}
	return out
}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
