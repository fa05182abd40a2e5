package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

const identityBase = `
kiln {
}

variable "suffix" {
  default = "v1"
}

locals {
  letter = "a"
  word   = "${local.letter}-${var.suffix}"
}

variable "greeting" {
  default = "hello"
}

exec "a" {
  command = "echo ${local.word} > $KILN_OUT/a"
}

exec "each" {
  for_each = { x = "1", y = "2" }
  command  = "echo ${var.greeting} ${each.value} > $KILN_OUT/n"
}

exec "all" {
  command = "cat ${exec.each["x"].out}/n ${exec.a.out}/a > $KILN_OUT/all"
}

exec "every" {
  command = "echo ${length(exec.each)} > $KILN_OUT/count"
}

output "a" { value = exec.a.out }
`

// identities loads src as the file p.hcl of dir and returns the shared
// identity and each node's identity by address.
func identities(t *testing.T, dir, src string) (string, map[string]string) {
	t.Helper()
	write(t, dir, "p.hcl", src)
	p, diags := Load(dir, Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ids := map[string]string{}
	for _, n := range p.Nodes {
		ids[n.Addr.String()] = p.NodeIdentity(n)
		if ids[n.Addr.String()] == "" {
			t.Fatalf("%s has no identity", n.Addr)
		}
	}
	return p.SharedIdentity(), ids
}

// TestNodeIdentity: an edit changes the identity of exactly the nodes
// whose configuration it can change, and no other.
func TestNodeIdentity(t *testing.T) {
	dir := t.TempDir()
	shared, base := identities(t, dir, identityBase)
	if shared == "" {
		t.Fatal("no shared identity")
	}
	for _, c := range []struct {
		name, from, to string
		changed        []string // the nodes whose identity changes
		sharedChanged  bool
	}{
		{"the same file again", "", "", nil, false},
		{"a command", `echo ${local.word}`, `echo -n ${local.word}`, []string{"exec.a"}, false},
		{"a comment and blank lines between blocks", "exec \"a\"", "# the letter\n\n\nexec \"a\"", nil, false},
		{"a comment inside a block", `exec "a" {`, "exec \"a\" {\n  # the letter\n", []string{"exec.a"}, false},
		{"one element of a for_each", `y = "2"`, `y = "3"`, []string{`exec.each["y"]`}, false},
		{"a new element of a for_each", `y = "2"`, `y = "2", z = "4"`, []string{`exec.each["z"]`, "exec.every"}, false},
		{"what an instance reads", `${exec.each["x"].out}`, `${exec.each["y"].out}`, []string{"exec.all"}, false},
		{"a local", `letter = "a"`, `letter = "b"`, []string{"exec.a"}, false},
		{"a local no node reads", `letter = "a"`, `letter = "a"
  unused = "x"`, nil, false},
		{"a variable, through a local", `default = "v1"`, `default = "v2"`, []string{"exec.a"}, false},
		{"a variable a block names", `variable "greeting" {`, `variable "greeting" {
  description = "ignored by nodes"`, nil, false},
		{"a variable's value", `default = "hello"`, `default = "hi"`, []string{`exec.each["x"]`, `exec.each["y"]`}, false},
		{"the kiln block", `kiln {`, `kiln {
  shell = ["sh", "-c"]`, nil, true},
		{"an output", `value = exec.a.out`, `value = exec.all.out`, nil, false},
	} {
		src := identityBase
		if c.from != "" {
			src = replaceOnce(t, src, c.from, c.to)
		}
		gotShared, ids := identities(t, dir, src)
		if (gotShared != shared) != c.sharedChanged {
			t.Errorf("%s: shared identity changed %v, want %v", c.name, gotShared != shared, c.sharedChanged)
		}
		want := map[string]bool{}
		for _, a := range c.changed {
			want[a] = true
		}
		for a, id := range ids {
			old, existed := base[a]
			if changed := !existed || old != id; changed != want[a] {
				t.Errorf("%s: identity of %s changed %v, want %v", c.name, a, changed, want[a])
			}
		}
	}
}

// TestNodeIdentityOfJSON: a JSON file's blocks have no source of their
// own, so neither its nodes nor, with a shared block in it, the pipeline
// have an identity to compare.
func TestNodeIdentityOfJSON(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.hcl.json", `{"exec": {"a": {"command": "echo a > $KILN_OUT/a"}}, "kiln": {"strict_lock": false}}`)
	p, diags := Load(filepath.Join(dir, "p.hcl.json"), Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if id := p.NodeIdentity(p.Nodes[0]); id != "" {
		t.Errorf("a JSON block's identity: %q, want none", id)
	}
	if id := p.SharedIdentity(); id != "" {
		t.Errorf("a JSON pipeline's shared identity: %q, want none", id)
	}
}

func replaceOnce(t *testing.T, s, from, to string) string {
	t.Helper()
	i := strings.Index(s, from)
	if i < 0 {
		t.Fatalf("%q not in the pipeline", from)
	}
	return s[:i] + to + s[i+len(from):]
}

// TestNodeIdentityOfSensitive: a node that reads a sensitive variable has
// no identity, so its value is not kept even as a digest, and the node is
// evaluated whenever the pipeline's files changed.
func TestNodeIdentityOfSensitive(t *testing.T) {
	p, diags := load(t, `
variable "token" {
  sensitive = true
  default   = "s3cret"
}

exec "a" {
  command = "echo a > $KILN_OUT/a"
}

exec "b" {
  command = "echo ${var.token} > $KILN_OUT/b"
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, n := range p.Nodes {
		if got, want := p.NodeIdentity(n) != "", n.Addr.Name == "a"; got != want {
			t.Errorf("%s has an identity: %v, want %v", n.Addr, got, want)
		}
	}
}
