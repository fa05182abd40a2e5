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
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/hash"
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
	"strlen": stdlib.StrlenFunc, "chunklist": uniformly(stdlib.ChunklistFunc, cty.NilType), "coalesce": stdlib.CoalesceFunc,
	"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc, "concat": stdlib.ConcatFunc,
	"contains": stdlib.ContainsFunc, "distinct": uniformly(stdlib.DistinctFunc, cty.NilType), "element": stdlib.ElementFunc,
	"flatten": stdlib.FlattenFunc, "index": stdlib.IndexFunc, "keys": stdlib.KeysFunc, "length": lengthFunc,
	"lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc, "range": stdlib.RangeFunc, "reverse": stdlib.ReverseListFunc,
	"setintersection": uniformly(stdlib.SetIntersectionFunc, cty.NilType), "setproduct": stdlib.SetProductFunc,
	"setsubtract": uniformly(stdlib.SetSubtractFunc, cty.NilType), "setunion": uniformly(stdlib.SetUnionFunc, cty.NilType), "slice": stdlib.SliceFunc,
	"sort": stdlib.SortFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
	"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc, "csvdecode": stdlib.CSVDecodeFunc,
	"yamlencode": ctyyaml.YAMLEncodeFunc, "yamldecode": ctyyaml.YAMLDecodeFunc,
	"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
	"tostring": stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
	"tobool": stdlib.MakeToFunc(cty.Bool), "tolist": toCollection(cty.List(cty.DynamicPseudoType)),
	"toset": toCollection(cty.Set(cty.DynamicPseudoType)), "tomap": toCollection(cty.Map(cty.DynamicPseudoType)),
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

// functions returns the pipeline's function table for one evaluation. The
// pure functions and those that read files (recording into the pipeline's
// read log) are made once per pipeline; env(), which records into rec, is
// made per evaluation, and so are the file functions when the pipeline
// records each evaluation's reads (Options.RecordReads: kiln diff). A nil
// rec records nothing.
func (p *Pipeline) functions(rec *reads) map[string]function.Function {
	p.initFunctions()
	fs := make(map[string]function.Function, len(p.funcs)+1)
	for k, v := range p.funcs {
		fs[k] = v
	}
	for k, v := range p.ownFunctions(rec) {
		fs[k] = v
	}
	return fs
}

func (p *Pipeline) initFunctions() {
	p.funcsOnce.Do(func() {
		p.funcs = make(map[string]function.Function, len(pureFunctions)+16)
		for k, v := range pureFunctions {
			p.funcs[k] = v
		}
		for k, v := range fileFunctions(p.Root, p.reads.record) {
			p.funcs[k] = v
		}
		p.funcsShared = &hcl.EvalContext{Functions: p.funcs}
	})
}

// ownFunctions are the functions made for one evaluation (see functions).
func (p *Pipeline) ownFunctions(rec *reads) map[string]function.Function {
	var env map[string]string
	if rec != nil {
		env = rec.env
	}
	fs := map[string]function.Function{"env": envFunction(env)}
	if rec != nil && (p.recordReads || rec.track) {
		for k, v := range fileFunctions(p.Root, func(what, path, seen string) {
			p.reads.record(what, path, seen)
			rec.record(what, path, seen)
		}) {
			fs[k] = v
		}
	}
	return fs
}

// newContext is an evaluation context with the pipeline's functions and
// the given variables. When every function the pipeline's files call
// exists (callsKnown), the table made once per pipeline is the parent
// context's and only the evaluation's own functions are made; otherwise the
// whole table is copied, because HCL's "did you mean" for an unknown
// function looks only at the innermost context. Copying the table for every
// evaluation was 0.68 GB of the 5.95 GB a first plan of 100,000 nodes
// allocated.
func (p *Pipeline) newContext(rec *reads, vars map[string]cty.Value) *hcl.EvalContext {
	return p.newNodeContext(rec, vars, true)
}

// newNodeContext is newContext for expressions that call env() only if
// callsEnv: without, and when the evaluation records no files of its own,
// its functions are the table made once per pipeline, as they are.
func (p *Pipeline) newNodeContext(rec *reads, vars map[string]cty.Value, callsEnv bool) *hcl.EvalContext {
	if !callsEnv && p.callsKnown && (rec == nil || !p.recordReads && !rec.track) {
		p.initFunctions()
		return &hcl.EvalContext{Variables: vars, Functions: p.funcs}
	}
	if !p.callsKnown {
		return &hcl.EvalContext{Variables: vars, Functions: p.functions(rec)}
	}
	p.initFunctions()
	ctx := p.funcsShared.NewChild()
	ctx.Variables = vars
	ctx.Functions = p.ownFunctions(rec)
	return ctx
}

// knownCalls reports whether every function the files call is among the
// pipeline's functions; false for a file that is not native HCL.
func (p *Pipeline) knownCalls(files []*hcl.File) bool {
	p.initFunctions()
	known := true
	for _, f := range files {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			return false
		}
		if plainTree(body) {
			continue
		}
		hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
			if c, ok := n.(*hclsyntax.FunctionCallExpr); ok && c.Name != "env" {
				if _, found := p.funcs[c.Name]; !found {
					known = false
				}
			}
			return nil
		})
	}
	return known
}

// fileFunctions are the functions that read files, resolved against root.
// Each read is recorded with what it saw: the content digest, or for
// fileexists whether a regular file was there.
func fileFunctions(root string, record func(what, path, seen string)) map[string]function.Function {
	fs := map[string]function.Function{}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(root, p)
	}
	read := func(p string) ([]byte, error) {
		b, err := os.ReadFile(resolve(p))
		if err != nil {
			record(ReadContent, resolve(p), ReadFailed)
			return nil, fmt.Errorf("cannot read %s: %w", p, unwrapPathError(err))
		}
		record(ReadContent, resolve(p), hash.ContentBytes(b).String())
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
			fi, err := os.Stat(resolve(args[0].AsString()))
			exists := err == nil && fi.Mode().IsRegular()
			record(ReadExists, resolve(args[0].AsString()), strconv.FormatBool(exists))
			return cty.BoolVal(exists), nil
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
	fs["listfile"] = listfileFunction(read)
	fs["fileset"] = filesetFunction(root, record)
	fs["glob_wildcards"] = globWildcardsFunction(root, record)
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
			if diags := CheckNesting(b, name, true); diags.HasErrors() {
				return cty.NilVal, diags
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

// What a file read saw, as FileRead.What says.
const (
	ReadContent = "content" // file, templatefile, filesha256: Seen is the content digest (hash.File's)
	ReadExists  = "exists"  // fileexists: Seen is "true" or "false"
	// fileset and glob_wildcards: Path is the folder, Pattern the pattern,
	// Seen the digest of the sorted absolute paths they found.
	ReadFileset   = "fileset"
	ReadWildcards = "glob_wildcards"
	ReadFailed    = "(cannot read)"
)

// FileRead is one file an expression read, as it was when read.
type FileRead struct {
	Path    string // absolute
	What    string // ReadContent, ReadExists, ReadFileset or ReadWildcards
	Seen    string
	Pattern string `json:",omitempty"` // of a listing
}

// reads is what one evaluation read from outside the pipeline's files:
// environment variables through env(), and files. A nil *reads records
// nothing.
type reads struct {
	env   map[string]string
	files map[[2]string]string // what, path -> seen
	track bool                 // record files even without Options.RecordReads
}

func newReads() *reads { return &reads{env: map[string]string{}, files: map[[2]string]string{}} }

// newFileReads is newReads for an evaluation that must know the files it
// read even when the pipeline does not record them (a dynamic expansion
// names them in its errors).
func newFileReads() *reads {
	r := newReads()
	r.track = true
	return r
}

func (r *reads) record(what, path, seen string) {
	if r != nil {
		r.files[[2]string{what, path}] = seen
	}
}

// merge adds what o read.
func (r *reads) merge(o *reads) {
	if r == nil || o == nil {
		return
	}
	for k, v := range o.env {
		r.env[k] = v
	}
	for k, v := range o.files {
		r.files[k] = v
	}
}

// fileList is the files read, sorted by path.
func (r *reads) fileList() []FileRead {
	out := make([]FileRead, 0, len(r.files))
	for k, v := range r.files {
		path, pattern, _ := strings.Cut(k[1], listingSep)
		out = append(out, FileRead{Path: path, What: k[0], Seen: v, Pattern: pattern})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].What < out[j].What
	})
	return out
}

// readLog records every file the pipeline's expressions read, as it was
// read, so the memo (engine/memo) can watch exactly what a plan saw. A
// file read twice with different results (an apply wrote it between two
// evaluations) makes the log inconsistent.
type readLog struct {
	mu           sync.Mutex
	seen         map[[2]string]string
	inconsistent bool
}

func (l *readLog) record(what, path, seen string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[[2]string]string{}
	}
	k := [2]string{what, path}
	if prev, ok := l.seen[k]; ok && prev != seen {
		l.inconsistent = true
	}
	if _, ok := l.seen[k]; !ok {
		l.seen[k] = seen
	}
}

// FilesRead lists the files the pipeline's expressions have read so far,
// each as it was first read. ok is false when a file was read again and
// had changed: no single view of the files holds then.
func (p *Pipeline) FilesRead() (files []FileRead, ok bool) {
	p.reads.mu.Lock()
	defer p.reads.mu.Unlock()
	r := &reads{files: p.reads.seen}
	return r.fileList(), !p.reads.inconsistent
}

// lengthFunc is length as in Terraform: the elements of a list, set, tuple,
// map or object — a for_each block is an object of its instances, so
// length(exec.map) counts them — or the characters of a string.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true, AllowMarked: true}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, marks := args[0].Unmark()
		t := v.Type()
		switch {
		case t == cty.DynamicPseudoType:
			return cty.UnknownVal(cty.Number).WithMarks(marks), nil
		case t == cty.String:
			return stdlib.Strlen(v)
		case t.IsObjectType():
			return cty.NumberIntVal(int64(len(t.AttributeTypes()))).WithMarks(marks), nil
		case t.IsListType() || t.IsSetType() || t.IsTupleType() || t.IsMapType():
			if !v.IsKnown() {
				return cty.UnknownVal(cty.Number).WithMarks(marks), nil
			}
			return v.Length().WithMarks(marks), nil
		}
		return cty.NilVal, fmt.Errorf("length takes a string, a list, a set, a tuple, a map or an object; this is a %s", t.FriendlyName())
	},
})
