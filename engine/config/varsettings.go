package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
	ctyyaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
)

// setting is one value given for a variable (KILN_VAR_, a -var-file, a
// -var), or for one attribute of an object variable when path is set
// (-var train.n_est=7 has path ["n_est"]).
type setting struct {
	name  string
	path  []string
	value func(ty cty.Type) (cty.Value, hcl.Diagnostics)
	// origin names where the setting came from, for messages.
	origin  string
	subject *hcl.Range
	// given is the text given on the command line or in the environment,
	// for messages; "" for a value read from a file.
	given string
}

// variableSettings gathers every setting per variable, in the order they
// apply: KILN_VAR_ (sorted by name), each -var-file in turn, then -var
// (sorted by name). Sorting by name puts train before train.n_est, so a
// whole value is given before the attributes that refine it, whatever the
// order of the flags.
func (p *Pipeline) variableSettings(o Options) (map[string][]setting, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	out := map[string][]setting{}
	add := func(s setting) {
		if _, ok := p.Variables[s.name]; !ok {
			diags = append(diags, p.undeclared(s.name, s.subject, s.origin))
			return
		}
		out[s.name] = append(out[s.name], s)
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	fromEnv := map[string]string{}
	for _, kv := range env {
		if name, val, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(name, "KILN_VAR_") {
			fromEnv[strings.TrimPrefix(name, "KILN_VAR_")] = val
		}
	}
	for _, full := range slices.Sorted(maps.Keys(fromEnv)) {
		name, path := p.splitVarName(full)
		// The environment holds more than kiln's variables; only declared
		// ones are read (a stray KILN_VAR_ is not an error).
		if _, declared := p.Variables[name]; declared {
			add(setting{name: name, path: path, value: rawValue(fromEnv[full], "KILN_VAR_"+full), origin: "given in the environment variable KILN_VAR_" + full, given: fromEnv[full]})
		}
	}
	for _, f := range o.VarFiles {
		vals, d := readVarFile(f)
		diags = append(diags, d...)
		for _, name := range slices.Sorted(maps.Keys(vals)) {
			v := vals[name]
			add(setting{name: name, value: v.value, origin: "in " + f, subject: v.subject})
		}
	}
	for _, full := range slices.Sorted(maps.Keys(o.Vars)) {
		name, path := p.splitVarName(full)
		add(setting{name: name, path: path, value: rawValue(o.Vars[full], "-var "+full), origin: "given with -var", given: o.Vars[full]})
	}
	return out, diags
}

// splitVarName reads "train.n_est" (or, for environment variable names,
// which shells limit to letters, digits and underscores, "train__n_est")
// as variable train, attribute n_est. A declared variable whose own name
// holds "__" keeps it.
func (p *Pipeline) splitVarName(full string) (string, []string) {
	if _, ok := p.Variables[full]; ok {
		return full, nil
	}
	parts := strings.Split(full, ".")
	if len(parts) == 1 {
		parts = strings.Split(full, "__")
	}
	return parts[0], parts[1:]
}

// apply returns the variable's value with s applied to the value below it
// (cur, cty.NilVal when there is none). A setting with a path replaces that
// attribute; an object for an object variable (or onto an object value)
// replaces the attributes it names and keeps the others; any other value
// replaces cur.
func (s setting) apply(cur cty.Value, ty cty.Type) (cty.Value, hcl.Diagnostics) {
	if len(s.path) == 0 {
		got, diags := s.value(ty)
		if diags.HasErrors() {
			return cty.NilVal, diags
		}
		if isObject(got) && isObject(cur) && (ty.IsObjectType() || ty == cty.DynamicPseudoType) {
			return mergeObjects(cur, got), nil
		}
		return got, nil
	}
	attrTy, err := typeAt(ty, s.path)
	if err != nil {
		return cty.NilVal, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid value for variable",
			Detail: fmt.Sprintf("var.%s.%s %s: %v.", s.name, strings.Join(s.path, "."), s.origin, err), Subject: s.subject}}
	}
	got, diags := s.value(attrTy)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	return setPath(cur, s.path, got), nil
}

func isObject(v cty.Value) bool {
	return v != cty.NilVal && !v.IsNull() && v.IsKnown() && (v.Type().IsObjectType() || v.Type().IsMapType())
}

// mergeObjects returns base with the attributes of over, merging nested
// objects the same way.
func mergeObjects(base, over cty.Value) cty.Value {
	m := base.AsValueMap()
	if m == nil {
		m = map[string]cty.Value{}
	}
	for k, v := range over.AsValueMap() {
		if old, ok := m[k]; ok && isObject(old) && isObject(v) {
			v = mergeObjects(old, v)
		}
		m[k] = v
	}
	return cty.ObjectVal(m)
}

// setPath returns v with the attribute at path set to x, creating objects
// on the way.
func setPath(v cty.Value, path []string, x cty.Value) cty.Value {
	if len(path) == 0 {
		return x
	}
	m := map[string]cty.Value{}
	if isObject(v) {
		m = v.AsValueMap()
	}
	child, ok := m[path[0]]
	if !ok {
		child = cty.NilVal
	}
	m[path[0]] = setPath(child, path[1:], x)
	return cty.ObjectVal(m)
}

// typeAt is the type of the attribute at path inside ty: DynamicPseudoType
// when ty does not say.
func typeAt(ty cty.Type, path []string) (cty.Type, error) {
	for _, name := range path {
		switch {
		case ty == cty.DynamicPseudoType:
			return ty, nil
		case ty.IsObjectType():
			if !ty.HasAttribute(name) {
				names := make([]string, 0, len(ty.AttributeTypes()))
				for n := range ty.AttributeTypes() {
					names = append(names, n)
				}
				sort.Strings(names)
				return cty.NilType, fmt.Errorf("the variable's type has no attribute %q (it has %s)", name, strings.Join(names, ", "))
			}
			ty = ty.AttributeType(name)
		case ty.IsMapType():
			ty = ty.ElementType()
		default:
			return cty.NilType, fmt.Errorf("the variable is a %s, not an object: set it whole", ty.FriendlyName())
		}
	}
	return ty, nil
}

// fileValue is one top-level value of a variables file.
type fileValue struct {
	value   func(cty.Type) (cty.Value, hcl.Diagnostics)
	subject *hcl.Range
}

// readVarFile reads a variables file: JSON (.json) or YAML (.yaml, .yml)
// holding one object of name: value, or HCL name = value lines (any other
// name, as Terraform's .tfvars).
func readVarFile(path string) (map[string]fileValue, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read variables file", Detail: varFileProblem(path, err)}}
	}
	if diags := CheckNesting(src, path, false); diags.HasErrors() {
		return nil, diags
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return readYAMLVars(path, src)
	}
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.EqualFold(filepath.Ext(path), ".json") {
		f, diags = hcljson.Parse(src, path)
	} else {
		f, diags = hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	attrs, d := f.Body.JustAttributes()
	diags = append(diags, d...)
	out := map[string]fileValue{}
	for name, a := range attrs {
		expr := a.Expr
		out[name] = fileValue{value: func(cty.Type) (cty.Value, hcl.Diagnostics) { return expr.Value(nil) }, subject: a.NameRange.Ptr()}
	}
	return out, diags
}

// varFileProblem says why a -var-file could not be read, and what to do.
func varFileProblem(path string, err error) string {
	abs, _ := filepath.Abs(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("-var-file %s: there is no such file (%s). Check the name: a relative path is read from the folder kiln runs in, not the pipeline's.", path, abs)
	case errors.Is(err, syscall.EISDIR):
		hint := "name a file in it"
		var files []string
		for _, pat := range []string{"*.json", "*.yaml", "*.yml", "*.tfvars", "*.hcl"} {
			m, _ := filepath.Glob(filepath.Join(path, pat))
			files = append(files, m...)
		}
		if len(files) > 0 {
			sort.Strings(files)
			hint = "name a file in it, such as -var-file " + files[0]
		}
		return fmt.Sprintf("-var-file %s is a folder; %s. A variables file is JSON (.json), YAML (.yaml) or HCL name = value lines.", path, hint)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("-var-file %s: permission denied; make the file readable by this user (chmod u+r %s).", path, path)
	}
	return fmt.Sprintf("-var-file %s: %v.", path, err)
}

func readYAMLVars(path string, src []byte) (map[string]fileValue, hcl.Diagnostics) {
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid variables file",
			Detail: fmt.Sprintf("%s: %s.", path, detail), Subject: &hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}}}
	}
	ty, err := ctyyaml.Standard.ImpliedType(src)
	if err != nil {
		return nil, bad(err.Error())
	}
	v, err := ctyyaml.Standard.Unmarshal(src, ty)
	if err != nil {
		return nil, bad(err.Error())
	}
	if v.IsNull() {
		return map[string]fileValue{}, nil
	}
	if !v.Type().IsObjectType() {
		return nil, bad("the file must hold a mapping of variable names to values, like \"train: {n_est: 7}\"")
	}
	out := map[string]fileValue{}
	for name, val := range v.AsValueMap() {
		val := val
		out[name] = fileValue{value: func(cty.Type) (cty.Value, hcl.Diagnostics) { return val, nil }, subject: &hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}}
	}
	return out, nil
}
