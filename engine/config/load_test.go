package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

func write(t testing.TB, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func load(t testing.TB, src string, o Options) (*Pipeline, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "p.hcl", src)
	o.Kinds = []kind.Kind{exec.New()}
	if o.Env == nil {
		o.Env = []string{}
	}
	return Load(dir, o)
}

func TestExpansionAndDeps(t *testing.T) {
	p, diags := load(t, `
variable "names" {
  type    = set(string)
  default = ["a", "b"]
}
exec "src" { command = "true" }
exec "each" {
  for_each = var.names
  command  = "echo ${each.key} ${exec.src.out}"
}
exec "shard" {
  count   = 2
  command = "echo ${count.index}"
}
exec "join" {
  command    = "cat ${exec.each["a"].out} ${exec.shard[1].out}"
  depends_on = [exec.src]
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []string
	for _, n := range p.Nodes {
		got = append(got, n.Addr.String())
	}
	want := `exec.each["a"] exec.each["b"] exec.join exec.shard[0] exec.shard[1] exec.src`
	if strings.Join(got, " ") != want {
		t.Fatalf("nodes = %s, want %s", strings.Join(got, " "), want)
	}
	join := p.Node(addr.Node{Kind: "exec", Name: "join"})
	var deps []string
	for _, d := range join.Deps {
		deps = append(deps, d.String())
	}
	if strings.Join(deps, " ") != `exec.each["a"] exec.shard[1] exec.src` {
		t.Errorf("join deps = %v", deps)
	}
}

func TestVariablePrecedence(t *testing.T) {
	src := `
variable "x" {
  type    = string
  default = "default"
}
exec "a" { command = var.x }
`
	dir := t.TempDir()
	write(t, dir, "p.hcl", src)
	vf := write(t, dir, "vars.kilnvars", `x = "file"`)
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"default", Options{Env: []string{}}, "default"},
		{"env", Options{Env: []string{"KILN_VAR_x=env"}}, "env"},
		{"file beats env", Options{Env: []string{"KILN_VAR_x=env"}, VarFiles: []string{vf}}, "file"},
		{"flag beats file", Options{Env: []string{"KILN_VAR_x=env"}, VarFiles: []string{vf}, Vars: map[string]string{"x": "flag"}}, "flag"},
	}
	for _, c := range cases {
		c.o.Kinds = []kind.Kind{exec.New()}
		p, diags := Load(dir, c.o)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.name, diags)
		}
		if got := p.Variables["x"].Value.AsString(); got != c.want {
			t.Errorf("%s: x = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestErrorsNameTheProblem(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"syntax", "exec \"a\" {\n  command = \n}\n", "p.hcl:2,13"},
		{"unknown attribute", `exec "a" { comand = "x" }`, `Did you mean "command"?`},
		{"unknown block kind", `exce "a" { command = "x" }`, `Did you mean "exec"?`},
		{"missing node", "exec \"build\" { command = \"x\" }\nexec \"b\" { command = exec.biuld.out }", "Did you mean exec.build?"},
		{"duplicate", "exec \"a\" { command = \"x\" }\nexec \"a\" { command = \"y\" }", "already declared at"},
		{"undeclared variable", `exec "a" { command = var.nope }`, "var.nope is not declared"},
		{"missing required variable", "variable \"v\" {}\nexec \"a\" { command = var.v }", "KILN_VAR_v"},
		{"validation", "variable \"v\" {\n default = 0\n validation {\n condition = var.v > 0\n error_message = \"v must be positive.\"\n }\n}", "v must be positive."},
		{"bad timeout", `exec "a" { 
 command = "x"
 timeout = "soon" 
}`, "not a duration"},
		{"count and for_each", `exec "a" {
 command = "x"
 count = 1
 for_each = {}
}`, "count or for_each"},
		{"self attribute", `exec "a" { command = self.digest }`, "self.out"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := load(t, c.src, Options{})
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			if !strings.Contains(diags.Error(), c.want) {
				t.Errorf("error %q does not mention %q", diags.Error(), c.want)
			}
		})
	}
}

func TestLocalsCycleIsReported(t *testing.T) {
	_, diags := load(t, "locals {\n a = local.b\n b = local.a\n}\nexec \"x\" { command = local.a }", Options{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "local.a → local.b") {
		t.Fatalf("diags = %v", diags)
	}
}

func TestEnvFunctionIsRecordedAndSensitive(t *testing.T) {
	t.Setenv("KILN_TEST_SECRET", "s3cret")
	p, diags := load(t, `exec "a" { command = "use ${env("KILN_TEST_SECRET")}" }`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ev, diags := p.Evaluate(p.Nodes[0], staticValues{p}, "/out")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if ev.EnvRead["KILN_TEST_SECRET"] != "s3cret" {
		t.Errorf("env read not recorded: %v", ev.EnvRead)
	}
	if !ev.Config.GetAttr("command").IsMarked() {
		t.Error("a value read with env() must be marked sensitive")
	}
}

// TestEnvCalledAnywhereInABlock: a block that calls env() nowhere is
// evaluated without it; one that calls it anywhere — its kind's arguments,
// a meta-argument, a lifecycle block, deep in an expression — has it, and
// the read is recorded.
func TestEnvCalledAnywhereInABlock(t *testing.T) {
	t.Setenv("KILN_TEST_ENV", "1")
	for _, block := range []string{
		`command = "use ${env("KILN_TEST_ENV")}"`,
		`command = "x"
  timeout = "${env("KILN_TEST_ENV")}s"`,
		`command = "x"
  lifecycle {
    prevent_replace = env("KILN_TEST_ENV") == "1"
  }`,
		`command = join(" ", [for x in ["a"] : upper(env("KILN_TEST_ENV", x))])`,
	} {
		p, diags := load(t, "exec \"a\" {\n  "+block+"\n}\n", Options{})
		if diags.HasErrors() {
			t.Fatalf("%s: %s", block, diags.Error())
		}
		if !p.Nodes[0].Block.callsEnv {
			t.Errorf("%s: the block is taken not to call env()", block)
		}
		ev, diags := p.Evaluate(p.Nodes[0], staticValues{p}, "/out")
		if diags.HasErrors() {
			t.Fatalf("%s: %s", block, diags.Error())
		}
		if strings.Contains(block, "command = \"x\"") {
			continue // read while loading
		}
		if ev.EnvRead["KILN_TEST_ENV"] != "1" {
			t.Errorf("%s: env read not recorded: %v", block, ev.EnvRead)
		}
	}
	p, diags := load(t, `exec "a" { command = "x" }`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p.Nodes[0].Block.callsEnv {
		t.Error("a block without env() is taken to call it")
	}
}

// TestFunctionTableSharedOrCopied: when every function a pipeline calls
// exists, evaluations share one function table (and still record env()
// reads and file() reads); when one does not, the error suggests the
// function meant, as HCL does with the whole table at hand.
func TestFunctionTableSharedOrCopied(t *testing.T) {
	t.Setenv("KILN_TEST_MODE", "fast")
	dir := t.TempDir()
	write(t, dir, "params.txt", "lr=0.1")
	write(t, dir, "p.hcl", `locals {
  mode = env("KILN_TEST_MODE")
}

exec "a" {
  command = "echo ${upper(local.mode)} ${file("params.txt")} > $KILN_OUT/o"
}
`)
	p, diags := Load(dir, Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if !p.callsKnown {
		t.Fatal("every function called exists, yet the table is copied for each evaluation")
	}
	ev, diags := p.Evaluate(p.Nodes[0], staticValues{p}, "/out")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got, marks := ev.Config.GetAttr("command").Unmark(); len(marks) == 0 || got.AsString() != "echo FAST lr=0.1 > $KILN_OUT/o" {
		t.Errorf("command = %#v (marks %v), want the marked string echo FAST lr=0.1 > $KILN_OUT/o", got, marks)
	}
	if ev.EnvRead["KILN_TEST_MODE"] != "fast" {
		t.Errorf("the env() read in a local is not recorded: %v", ev.EnvRead)
	}
	if reads, _ := p.FilesRead(); len(reads) != 1 || !strings.HasSuffix(reads[0].Path, "params.txt") {
		t.Errorf("files read: %v, want params.txt", reads)
	}

	p, diags = load(t, `exec "a" { command = uppr("x") }`, Options{})
	if diags.HasErrors() || p.callsKnown {
		t.Fatalf("load: %s; table shared: %v", diags.Error(), p.callsKnown)
	}
	_, diags = p.Evaluate(p.Nodes[0], staticValues{p}, "/out")
	if !strings.Contains(diags.Error(), `There is no function named "uppr". Did you mean "upper"?`) {
		t.Errorf("a misspelt function: %s", diags.Error())
	}
}

func FuzzLoad(f *testing.F) {
	seeds := []string{
		`exec "a" { command = "echo hi > $KILN_OUT/x" }`,
		"variable \"v\" {\n default = 1\n}\nexec \"a\" {\n count = var.v\n command = [\"true\"]\n}",
		"locals { x = 1 }\nexec \"b\" {\n for_each = toset([\"a\"])\n command = \"${each.key}${local.x}\"\n depends_on = [exec.c]\n}\nexec \"c\" { command = exec.b[\"a\"].out }",
		"output \"o\" { value = exec.a.out }\nexec \"a\" { command = \"x\" }",
		"exec \"a\" { command = exec.a.out }",
		// Deep nesting: refused before the parser recurses.
		"exec \"a\" {\n command = " + strings.Repeat("(", 3000) + "\"x\"" + strings.Repeat(")", 3000) + "\n}",
		"exec \"a\" { command = \"" + strings.Repeat("${\"", 1500) + "x" + strings.Repeat("\"}", 1500) + "\" }",
		"exec \"a\" {\n command = <<EOT\n" + strings.Repeat("%{ if true }", 1200) + strings.Repeat("%{ endif }", 1200) + "\nEOT\n}",
		"locals {\n x = " + strings.Repeat("[{a = ", 600) + "1" + strings.Repeat("}]", 600) + "\n}",
		"exec \"a\" { command = \"" + strings.Repeat("((", 2000) + "\" } # " + strings.Repeat("[", 2000),
		// Long names: a node name and for_each keys past a file name's 255 bytes.
		"exec \"" + strings.Repeat("n", 300) + "\" { command = \"x\" }",
		"exec \"a\" {\n for_each = toset([\"" + strings.Repeat("/data/x", 50) + "\", \"" + strings.Repeat("~", 300) + "\"])\n command = each.key\n}",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	// The fuzzer is after parser and evaluator bugs, not scale: a pipeline
	// of a million nodes is valid, and would only stall it.
	maxInstances = 64
	f.Fuzz(func(t *testing.T, src string) {
		dir := t.TempDir()
		write(t, dir, "p.hcl", src)
		p, diags := Load(dir, Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
		if diags.HasErrors() || p == nil {
			return
		}
		for _, n := range p.Nodes {
			if name := n.Addr.FileName(); len(name) > addr.MaxFileName || strings.ContainsAny(name, "/\x00") {
				t.Errorf("%.60s: FileName %.60q is not one short path element", n.Addr, name)
			}
			p.Evaluate(n, staticValues{p}, "/out")
		}
	})
}

// TestForEachOverAFailedLocal: a for_each (or count) that reads a local
// which fails to evaluate reports the local's own error, at its line, not
// that local has no such attribute.
func TestForEachOverAFailedLocal(t *testing.T) {
	for _, arg := range []string{
		`for_each = toset([for i in local.ids : tostring(i)])`,
		`count    = length(local.ids)`,
	} {
		_, diags := load(t, `
locals {
  ids = range(2000)
}
exec "a" {
  `+arg+`
  command  = "true"
}
`, Options{})
		if !diags.HasErrors() {
			t.Fatalf("%s: loaded", arg)
		}
		d := diags[0]
		if !strings.Contains(d.Detail, "more than 1024 values") || d.Subject == nil || d.Subject.Start.Line != 3 || strings.Contains(diags.Error(), "does not have an attribute") {
			t.Errorf("%s: %v, want range's own error at line 3", arg, diags)
		}
	}
}

// A local that fails to evaluate is reported when the pipeline loads
// wherever an instance uses it, not only in for_each or count (those are
// evaluated once per block, the rest once per instance).
func TestInstanceLocalFailsAtLoad(t *testing.T) {
	_, diags := load(t, `
locals {
  names = toset(["a", "b"])
  ids   = range(2000)
}
exec "a" {
  for_each = local.names
  command  = "echo ${length(local.ids)}"
}
`, Options{})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "more than 1024 values") || diags[0].Subject == nil || diags[0].Subject.Start.Line != 4 {
		t.Fatalf("want range's one error at line 4, got %v", diags)
	}
}
