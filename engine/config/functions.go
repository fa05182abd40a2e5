package config

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	ctyyaml "github.com/zclconf/go-cty-yaml"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// SensitiveMark marks values that must never be written to state or keys in
// clear: values read with env(), and variables declared sensitive.
const SensitiveMark = "sensitive"

var pureFunctions = map[string]function.Function{
	"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc, "log": stdlib.LogFunc,
	"max": stdlib.MaxFunc, "min": stdlib.MinFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
	"parseint": stdlib.ParseIntFunc, "chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc,
	"formatlist": stdlib.FormatListFunc, "indent": stdlib.IndentFunc, "join": stdlib.JoinFunc,
	"lower": stdlib.LowerFunc, "upper": stdlib.UpperFunc, "regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc,
	"replace": stdlib.ReplaceFunc, "regex_replace": stdlib.RegexReplaceFunc, "split": stdlib.SplitFunc,
	"strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc, "trim": stdlib.TrimFunc,
	"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc, "trimspace": stdlib.TrimSpaceFunc,
	"strlen": stdlib.StrlenFunc, "chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc,
	"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc, "concat": stdlib.ConcatFunc,
	"contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc, "element": stdlib.ElementFunc,
	"flatten": stdlib.FlattenFunc, "index": stdlib.IndexFunc, "keys": stdlib.KeysFunc, "length": stdlib.LengthFunc,
	"lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc, "range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
	"setintersection": stdlib.SetIntersectionFunc, "setproduct": stdlib.SetProductFunc,
	"setsubtract": stdlib.SetSubtractFunc, "setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc,
	"sort": stdlib.SortFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
	"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "csvdecode": stdlib.CSVDecodeFunc,
	"yamlencode": ctyyaml.YAMLEncodeFunc, "yamldecode": ctyyaml.YAMLDecodeFunc,
	"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
	"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
	"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
	"toset": stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
	"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
	"sha256":       stringHash(func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }),
	"md5":          stringHash(func(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }),
	"base64encode": stringHash(func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }),
	"base64decode": function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := base64.StdEncoding.DecodeString(args[0].AsString())
			if err != nil {
				return cty.NilVal, fmt.Errorf("not valid base64: %w", err)
			}
			return cty.StringVal(string(b)), nil
		},
	}),
	"basename": pathFunc(filepath.Base),
	"dirname":  pathFunc(filepath.Dir),
}

// functions returns the pipeline's function table for one evaluation: the
// table without env() is made once per pipeline; only env(), which records
// into envRead, is per evaluation.
func (p *Pipeline) functions(envRead map[string]string) map[string]function.Function {
	p.funcsOnce.Do(func() { p.funcs = machineFunctions(p.Root, &p.reads) })
	fs := make(map[string]function.Function, len(p.funcs)+1)
	for k, v := range p.funcs {
		fs[k] = v
	}
	fs["env"] = envFunction(envRead)
	return fs
}

// machineFunctions is the pure functions plus those that read files,
// resolved against root and recorded in reads.
func machineFunctions(root string, reads *readLog) map[string]function.Function {
	fs := make(map[string]function.Function, len(pureFunctions)+8)
	for k, v := range pureFunctions {
		fs[k] = v
	}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	read := func(p string) ([]byte, error) {
		reads.add(resolve(p))
		b, err := os.ReadFile(resolve(p))
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathError(err))
		}
		return b, nil
	}
	fs["file"] = function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := read(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(string(b)), nil
		},
	})
	fs["fileexists"] = function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			reads.add(resolve(args[0].AsString()))
			fi, err := os.Stat(resolve(args[0].AsString()))
			return cty.BoolVal(err == nil && fi.Mode().IsRegular()), nil
		},
	})
	fs["filesha256"] = function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := read(args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			s := sha256.Sum256(b)
			return cty.StringVal(hex.EncodeToString(s[:])), nil
		},
	})
	fs["abspath"] = pathFunc(func(p string) string { return filepath.Clean(resolve(p)) })
	fs["templatefile"] = function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			b, err := read(name)
			if err != nil {
				return cty.NilVal, err
			}
			expr, diags := hclsyntax.ParseTemplate(b, name, hcl.InitialPos)
			if diags.HasErrors() {
				return cty.NilVal, diags
			}
			vars := map[string]cty.Value{}
			if v := args[1]; !v.IsNull() && (v.Type().IsObjectType() || v.Type().IsMapType()) {
				vars = v.AsValueMap()
			}
			ctx := &hcl.EvalContext{Variables: vars, Functions: pureFunctions}
			v, diags := expr.Value(ctx)
			if diags.HasErrors() {
				return cty.NilVal, diags
			}
			return convert.Convert(v, cty.String)
		},
	})
	return fs
}

// envFunction is env(NAME [, default]): it records what it reads into
// envRead, and marks the value sensitive.
func envFunction(envRead map[string]string) function.Function {
	return function.New(&function.Spec{
		Params:   []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			v, ok := os.LookupEnv(name)
			if !ok {
				if len(args) < 2 {
					return cty.NilVal, fmt.Errorf("environment variable %s is not set (set it, or give a default: env(%q, \"value\"))", name, name)
				}
				v = args[1].AsString()
			}
			if envRead != nil {
				envRead[name] = v
			}
			return cty.StringVal(v).Mark(SensitiveMark), nil
		},
	})
}

func stringHash(f func([]byte) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "str", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(f([]byte(args[0].AsString()))), nil
		},
	})
}

func pathFunc(f func(string) string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(f(args[0].AsString())), nil
		},
	})
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func convertTo(v cty.Value, t cty.Type) (cty.Value, error) { return convert.Convert(v, t) }

// readLog records the files expressions read (file, templatefile,
// fileexists, filesha256), so a cached evaluation can tell when one changed.
type readLog struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (r *readLog) add(p string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.paths == nil {
		r.paths = map[string]bool{}
	}
	r.paths[filepath.Clean(p)] = true
	r.mu.Unlock()
}

// FilesRead lists the files the pipeline's expressions have read so far.
func (p *Pipeline) FilesRead() []string {
	p.reads.mu.Lock()
	defer p.reads.mu.Unlock()
	out := make([]string, 0, len(p.reads.paths))
	for f := range p.reads.paths {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
