package providers

import (
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/schema"
)

// TestKindsDescribeWhatTheyDecode: every kind describes its block, decodes
// with exactly the spec its description derives, documents every
// attribute with a type, how it enters the key, a meaning and an example,
// and its example block uses only attributes the loader accepts.
func TestKindsDescribeWhatTheyDecode(t *testing.T) {
	meta := config.MetaArguments.BodySchema()
	for _, k := range All() {
		t.Run(k.Name(), func(t *testing.T) {
			d, ok := k.(kind.Documented)
			if !ok {
				t.Fatalf("%s does not implement kind.Documented: describe its block with a schema.Block", k.Name())
			}
			b := d.Schema()
			if !reflect.DeepEqual(k.Spec(), b.Spec()) {
				t.Fatalf("%s: Spec() is not Schema().Spec(); decode with the described schema", k.Name())
			}
			if b.Name != k.Name() || b.Summary == "" || b.Example == "" {
				t.Errorf("%s: the schema needs the kind's name, a summary and an example", k.Name())
			}
			checkAttrs(t, k.Name(), b)
			f, diags := hclsyntax.ParseConfig([]byte(b.Example), k.Name()+" example", hcl.InitialPos)
			if diags.HasErrors() {
				t.Fatalf("example: %v", diags)
			}
			content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: k.Name(), LabelNames: []string{"name"}}}})
			if diags.HasErrors() {
				t.Fatalf("example: %v", diags)
			}
			for _, blk := range content.Blocks {
				_, rest, diags := blk.Body.PartialContent(meta)
				if diags.HasErrors() {
					t.Fatalf("example: %v", diags)
				}
				if _, diags := rest.Content(b.BodySchema()); diags.HasErrors() {
					t.Errorf("example does not fit the schema: %v", diags)
				}
			}
		})
	}
}

func checkAttrs(t *testing.T, where string, b *schema.Block) {
	t.Helper()
	for _, a := range b.Attrs {
		if a.Doc == "" || a.Example == "" || a.Key == schema.KeyNone || a.TypeName() == "" {
			t.Errorf("%s.%s: give it a meaning, an example and how it enters the key", where, a.Name)
		}
		if _, diags := hclsyntax.ParseExpression([]byte(a.Example), a.Name, hcl.InitialPos); diags.HasErrors() {
			t.Errorf("%s.%s: example %s does not parse: %v", where, a.Name, a.Example, diags)
		}
	}
	for _, nb := range b.Blocks {
		if nb.Summary == "" {
			t.Errorf("%s: block %s needs a summary", where, nb.Name)
		}
		checkAttrs(t, where+"."+nb.Name, nb)
	}
}
