package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty/function"
)

// funcDoc is what the reference says of a function beyond what its
// function.Spec holds: a description where the spec has none, and an example
// call with its result. TestFunctionExamples evaluates every example, so the
// reference shows what kiln really answers.
type funcDoc struct {
	doc             string
	example, result string
}

var functionDocs = map[string]funcDoc{
	"abs":          {example: `abs(-3)`, result: `3`},
	"abspath":      {doc: "Returns the absolute, cleaned form of path; a relative path is taken from the pipeline folder.", example: `abspath("/data/../models")`, result: `"/models"`},
	"base64decode": {doc: "Decodes a standard base64 string.", example: `base64decode("a2lsbg==")`, result: `"kiln"`},
	"base64encode": {doc: "Encodes a string as standard base64.", example: `base64encode("kiln")`, result: `"a2lsbg=="`},
	"basename":     {doc: "Returns the last element of a path.", example: `basename("/data/train/part-0.parquet")`, result: `"part-0.parquet"`},
	"can":          {doc: "Returns true when the expression evaluates without an error.", example: `can(tonumber("x"))`, result: `false`},
	"ceil":         {example: `ceil(2.1)`, result: `3`},
	"chomp":        {example: `chomp("line\n")`, result: `"line"`},
	"chunklist":    {example: `chunklist(["a", "b", "c"], 2)`, result: `[["a", "b"], ["c"]]`},
	"coalesce":     {example: `coalesce(null, "fallback")`, result: `"fallback"`},
	"coalescelist": {example: `coalescelist([], ["b"])`, result: `["b"]`},
	"compact":      {example: `compact(["a", "", "b"])`, result: `["a", "b"]`},
	"concat":       {example: `concat(["a"], ["b", "c"])`, result: `["a", "b", "c"]`},
	"contains":     {example: `contains(["npu", "gpu"], "npu")`, result: `true`},
	"csvdecode":    {example: `csvdecode("lr,epochs\n0.1,3\n")`, result: `[{ epochs = "3", lr = "0.1" }]`},
	"dirname":      {doc: "Returns a path without its last element.", example: `dirname("/data/train/part-0.parquet")`, result: `"/data/train"`},
	"distinct":     {example: `distinct(["a", "b", "a"])`, result: `["a", "b"]`},
	"element":      {example: `element(["a", "b"], 3)`, result: `"b"`},
	"env":          {doc: "Returns an environment variable of kiln's process, or the default when it is unset (an error without one). The value enters the key of every node that uses it, as a hash, and is sensitive: keys, state and explain show only its hash.", example: `env("KILN_DOC_UNSET", "/data")`, result: `"/data"`},
	"file":         {doc: "Returns a file's contents as a string; a relative path is taken from the pipeline folder. The contents end up in the configuration, so in the key.", example: `file("VERSION")`, result: `"1.4.0\n"`},
	"fileexists":   {doc: "Returns whether a regular file exists at path (relative to the pipeline folder).", example: `fileexists("VERSION")`, result: `true`},
	"fileset": {doc: "The regular files under path matching pattern, relative to path, sorted, as in Terraform: * and ? within a folder, ** across folders, [abc], {a,b}. A folder that does not exist gives an empty set; .kiln is left out unless the pattern names it. The listing is re-checked by the next plan, so a new matching file is noticed.",
		example: `fileset("data", "*.fastq")`, result: `["a.fastq", "b.fastq"]`},
	"glob_wildcards": {doc: "Snakemake's function: the files matching a pattern with named wildcards, as a map from the wildcard's value to the path. {name} matches within one folder; {name,REGEX} constrains it; with several wildcards the key is their values joined by /. Paths are relative to the pipeline folder when the pattern is. With for_each, a new matching file adds exactly one instance.",
		example: `glob_wildcards("data/{sample}.fastq")`, result: `{ a = "data/a.fastq", b = "data/b.fastq" }`},
	"listfile": {doc: "Reads a list or a map written to a file, typically by an upstream node that decides how many shards there are: a JSON array of strings or numbers, a JSON object, or text with one entry per line (blank lines and # comments skipped). The result is what for_each takes: a list entry is its own key and value.",
		example: `listfile("shards.txt")`, result: `{ a = "a", b = "b" }`},
	"filesha256":      {doc: "Returns the hex SHA-256 of a file's contents (relative to the pipeline folder).", example: `filesha256("VERSION")`, result: `"78b591400c56b7b67b8cb3b2b8a8e65e9093897f02ce0878e6b5405c68620fa7"`},
	"flatten":         {example: `flatten([["a"], ["b", ["c"]]])`, result: `["a", "b", "c"]`},
	"floor":           {example: `floor(2.9)`, result: `2`},
	"format":          {example: `format("lr=%.3f", 0.1)`, result: `"lr=0.100"`},
	"formatdate":      {example: `formatdate("YYYY-MM-DD", "2026-01-02T03:04:05Z")`, result: `"2026-01-02"`},
	"formatlist":      {example: `formatlist("shard-%d", [0, 1])`, result: `["shard-0", "shard-1"]`},
	"indent":          {example: `indent(2, "a\nb")`, result: `"a\n  b"`},
	"index":           {example: `index(["a", "b"], 1)`, result: `"b"`},
	"join":            {example: `join(",", ["a", "b"])`, result: `"a,b"`},
	"jsondecode":      {example: `jsondecode("{\"lr\": 0.1}")`, result: `{ lr = 0.1 }`},
	"jsonencode":      {example: `jsonencode({ lr = 0.1 })`, result: `"{\"lr\":0.1}"`},
	"keys":            {example: `keys({ b = 1, a = 2 })`, result: `["a", "b"]`},
	"length":          {doc: "The number of elements of a list, set, tuple, map or object — length(exec.map) counts a for_each block's instances — or of characters of a string.", example: `length(["a", "b"])`, result: `2`},
	"log":             {example: `log(8, 2)`, result: `3`},
	"lookup":          {example: `lookup({ npu = 8 }, "gpu", 0)`, result: `0`},
	"lower":           {example: `lower("NPU")`, result: `"npu"`},
	"max":             {example: `max(3, 8, 1)`, result: `8`},
	"md5":             {doc: "Returns the hex MD5 of a string.", example: `md5("kiln")`, result: `"9e8287435ae73a052c9459e215e46a28"`},
	"merge":           {example: `merge({ a = 1 }, { b = 2 })`, result: `{ a = 1, b = 2 }`},
	"min":             {example: `min(3, 8, 1)`, result: `1`},
	"parseint":        {example: `parseint("ff", 16)`, result: `255`},
	"pow":             {example: `pow(2, 10)`, result: `1024`},
	"range":           {example: `range(3)`, result: `[0, 1, 2]`},
	"regex":           {example: `regex("v([0-9]+)", "v12")`, result: `["12"]`},
	"regex_replace":   {example: `regex_replace("a1b22", "[0-9]+", "#")`, result: `"a#b#"`},
	"regexall":        {example: `regexall("[0-9]+", "a1b22")`, result: `["1", "22"]`},
	"replace":         {example: `replace("a-b-c", "-", "_")`, result: `"a_b_c"`},
	"reverse":         {example: `reverse(["a", "b"])`, result: `["b", "a"]`},
	"setintersection": {example: `setintersection(["a", "b"], ["b", "c"])`, result: `["b"]`},
	"setproduct":      {example: `setproduct(["a"], ["x", "y"])`, result: `[["a", "x"], ["a", "y"]]`},
	"setsubtract":     {example: `setsubtract(["a", "b"], ["b"])`, result: `["a"]`},
	"setunion":        {example: `setunion(["a"], ["b"])`, result: `["a", "b"]`},
	"sha256":          {doc: "Returns the hex SHA-256 of a string.", example: `sha256("kiln")`, result: `"cdfe9ad58b46226d63eb322dacd35f4f7ac38096180c87258c142e4bca9a3cf5"`},
	"signum":          {example: `signum(-7)`, result: `-1`},
	"slice":           {example: `slice(["a", "b", "c"], 1, 3)`, result: `["b", "c"]`},
	"sort":            {example: `sort(["b", "a"])`, result: `["a", "b"]`},
	"split":           {example: `split(",", "a,b")`, result: `["a", "b"]`},
	"strlen":          {example: `strlen("kiln")`, result: `4`},
	"strrev":          {example: `strrev("kiln")`, result: `"nlik"`},
	"substr":          {example: `substr("kiln", 1, 2)`, result: `"il"`},
	"templatefile":    {doc: "Renders a template file (relative to the pipeline folder) with the given variables; the result enters the key, so editing the template rebuilds what uses it.", example: `templatefile("greeting.tmpl", { name = "kiln" })`, result: `"Hello, kiln!\n"`},
	"timeadd":         {example: `timeadd("2026-01-02T00:00:00Z", "90m")`, result: `"2026-01-02T01:30:00Z"`},
	"title":           {example: `title("retool recipe")`, result: `"Retool Recipe"`},
	"tobool":          {example: `tobool("true")`, result: `true`},
	"tolist":          {example: `tolist(["a", "b"])`, result: `["a", "b"]`},
	"tomap":           {example: `tomap({ a = "1" })`, result: `{ a = "1" }`},
	"tonumber":        {example: `tonumber("42")`, result: `42`},
	"toset":           {example: `toset(["b", "a", "b"])`, result: `["a", "b"]`},
	"tostring":        {example: `tostring(42)`, result: `"42"`},
	"trim":            {example: `trim("--a--", "-")`, result: `"a"`},
	"trimprefix":      {example: `trimprefix("v1.2", "v")`, result: `"1.2"`},
	"trimspace":       {example: `trimspace("  a  ")`, result: `"a"`},
	"trimsuffix":      {example: `trimsuffix("model.bin", ".bin")`, result: `"model"`},
	"try":             {doc: "Returns the first argument that evaluates without an error.", example: `try(tonumber("x"), 0)`, result: `0`},
	"upper":           {example: `upper("npu")`, result: `"NPU"`},
	"values":          {example: `values({ a = 1, b = 2 })`, result: `[1, 2]`},
	"yamldecode":      {doc: "Parses a YAML document into a value.", example: `yamldecode("lr: 0.1")`, result: `{ lr = 0.1 }`},
	"yamlencode":      {doc: "Returns a YAML document of the value.", example: `yamlencode({ lr = 0.1 })`, result: `"\"lr\": 0.1\n"`},
	"zipmap":          {example: `zipmap(["a", "b"], [1, 2])`, result: `{ a = 1, b = 2 }`},
}

// docFunctions is the function table the reference describes: every
// function a pipeline may call.
func docFunctions() map[string]function.Function { return functionTable("") }

// functionTable is every function with files read from root, recording
// nothing: the table the reference is written from and its examples run
// with.
func functionTable(root string) map[string]function.Function {
	fs := make(map[string]function.Function, len(pureFunctions)+8)
	for k, v := range pureFunctions {
		fs[k] = v
	}
	for k, v := range fileFunctions(root, func(what, path, seen string) {}) {
		fs[k] = v
	}
	fs["env"] = envFunction(nil)
	return fs
}

// Functions describes every function of the language, sorted by name.
func Functions() []schema.Function {
	fs := docFunctions()
	out := make([]schema.Function, 0, len(fs))
	for name, f := range fs {
		d := functionDocs[name]
		doc := f.Description()
		if d.doc != "" {
			doc = d.doc
		}
		out = append(out, schema.Function{Name: name, Signature: signature(name, f), Doc: doc, Example: d.example, Result: d.result})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func signature(name string, f function.Function) string {
	var ps []string
	for _, p := range f.Params() {
		ps = append(ps, p.Name)
	}
	if vp := f.VarParam(); vp != nil {
		ps = append(ps, vp.Name+"...")
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(ps, ", "))
}
