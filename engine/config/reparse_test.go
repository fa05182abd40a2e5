package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// reparsed is a pipeline of every form a block's source takes: plain, on
// one line, with meta-arguments and nested blocks, a heredoc, comments,
// and a last block with no newline after it.
const reparsed = `# a pipeline
exec "plain" {
  inputs  = ["in.txt"]
  command = "cat in.txt > $KILN_OUT/o"
}

exec "one_line" { command = "echo ${exec.plain.out} > $KILN_OUT/o" }

exec "meta" {
  for_each   = toset(["x", "y"])
  depends_on = [exec.plain]
  timeout    = "1m" # a comment
  env        = { A = each.key }
  command    = <<-EOT
    echo ${each.value} > $KILN_OUT/o
  EOT
  metrics {
    patterns = ["loss=(?P<loss>[0-9.]+)"]
  }
  lifecycle {
    prevent_replace = true
  }
}

exec "last" {
  count   = 2
  command = "echo ${count.index} > $KILN_OUT/o"
}`

// TestBodyParsedAgainIsTheLoadedOne: once Load lets go of the trees, each
// block's body, parsed again from its source, is the tree the load made
// of it — positions, hidden meta-arguments and all — and is parsed once.
func TestBodyParsedAgainIsTheLoadedOne(t *testing.T) {
	p, diags := load(t, reparsed, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var name string
	for n := range p.Files {
		name = n
	}
	file, diags := hclsyntax.ParseConfig([]byte(reparsed), name, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	loaded := map[string]hcl.Body{}
	for _, b := range file.Body.(*hclsyntax.Body).Blocks {
		content, remain, _ := b.Body.PartialContent(metaSchema())
		if len(content.Attributes) == 0 && len(content.Blocks) == 0 {
			remain = b.Body
		}
		loaded[b.Labels[0]] = remain
	}
	if len(p.Blocks) != 4 {
		t.Fatalf("%d blocks, want 4", len(p.Blocks))
	}
	for _, b := range p.Blocks {
		if b.syntax != nil || b.src == nil {
			t.Errorf("%s: after the load, tree %v and %d bytes of source; want no tree and its source", b.Name, b.syntax != nil, len(b.src))
			continue
		}
		got := b.Body()
		if !reflect.DeepEqual(loaded[b.Name], got) {
			t.Errorf("%s: the tree parsed again differs from the load's (-load +again):\n%s", b.Name,
				cmp.Diff(loaded[b.Name], got, cmpopts.IgnoreUnexported(hclsyntax.Body{}), cmp.Comparer(func(a, b cty.Value) bool { return a.RawEquals(b) })))
		}
		if again := b.Body(); again != got {
			t.Errorf("%s: parsed again on the second read", b.Name)
		}
	}
	for _, n := range p.Nodes {
		if _, d := p.Evaluate(n, staticValues{p}, "/out"); d.HasErrors() {
			t.Errorf("%s: %s", n.Addr, d)
		}
	}
	if r := p.Nodes[0].AttrRange("command"); r.Start.Line == 0 || !strings.HasSuffix(r.Filename, ".hcl") {
		t.Errorf("AttrRange after the load: %v", r)
	}
}

// TestBlockLetGoIsNotParsedAgain: ForgetBlock lets go of the source too,
// so a forgotten block is refused rather than parsed again.
func TestBlockLetGoIsNotParsedAgain(t *testing.T) {
	p, diags := load(t, reparsed, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b := p.Blocks[0]
	if !b.Held() {
		t.Fatal("a loaded block is not held")
	}
	p.ForgetBlock(b)
	if b.Held() || b.Body() != nil {
		t.Errorf("after ForgetBlock: held %v, body %v", b.Held(), b.Body())
	}
}
