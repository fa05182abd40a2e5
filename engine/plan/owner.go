package plan

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/state"
)

// Several pipeline files may share a folder, and so a state folder: `kiln
// apply one.hcl` and `kiln apply two.hcl` beside it keep their records in
// one state. Each record names the file that declares its node
// (Record.File), and a pipeline only forgets its own: a record of another
// file of the folder stays until that file's pipeline drops the node, or
// the file is gone. Run on the folder, kiln loads every file as one
// pipeline, which owns every record. (Separate state folders per file would
// split the store, the stable paths .kiln/out/ and the lock file beside
// the pipelines, which users share between them.)

// FileOf is the pipeline file that declares n, relative to the pipeline
// folder, as records name it.
func FileOf(p *config.Pipeline, n *config.Node) string {
	return relTo(p.Root, n.DeclRange.Filename)
}

// Leaves reports whether r is the record of a node that left this
// pipeline: it is not declared (nor an instance of a block whose instances
// are not known yet), and its file is one of the pipeline's, no longer
// exists, or is unknown (a record made before records named it).
func (d *Decider) Leaves(r *state.Record) bool {
	a, err := addr.Parse(r.Addr)
	if err == nil && (d.Pipeline.Node(a) != nil || d.keepsUnexpanded(a)) {
		return false
	}
	return d.owns(r)
}

// owns reports whether records of r's file are this pipeline's to forget.
func (d *Decider) owns(r *state.Record) bool {
	if r.File == "" || slices.Contains(d.Pipeline.FileNames, r.File) {
		return true
	}
	_, err := os.Lstat(filepath.Join(d.Pipeline.Root, r.File))
	return err != nil
}

// SharedNodes reports the nodes of this pipeline whose record was made by
// another pipeline file of the folder that still declares them: applying
// this pipeline would replace that pipeline's result.
func (d *Decider) SharedNodes() hcl.Diagnostics {
	var diags hcl.Diagnostics
	declared := map[string]map[addr.Node]bool{}
	for _, n := range d.Pipeline.Nodes {
		r := d.State.Records[n.Addr.String()]
		if r == nil || d.owns(r) {
			continue
		}
		blocks, ok := declared[r.File]
		if !ok {
			blocks = declaredBlocks(filepath.Join(d.Pipeline.Root, r.File), d.Pipeline)
			declared[r.File] = blocks
		}
		if !blocks[n.Addr.Block()] {
			continue // the block moved here: this pipeline owns it now
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  n.Addr.String() + " is also declared in " + r.File,
			Detail: "Its recorded result was made by " + r.File + ", another pipeline file sharing this folder's state (.kiln); applying this pipeline would replace it. " +
				"Rename one of the blocks, give each pipeline a folder of its own, or run kiln on the folder to treat its .hcl files as one pipeline.",
			Subject: n.DeclRange.Ptr(),
		})
	}
	return diags
}

// declaredBlocks lists the node blocks a pipeline file declares, by type
// and name; nothing when it does not parse.
func declaredBlocks(path string, p *config.Pipeline) map[addr.Node]bool {
	out := map[addr.Node]bool{}
	parser := hclparse.NewParser()
	var f *hcl.File
	var diags hcl.Diagnostics
	if filepath.Ext(path) == ".json" {
		f, diags = parser.ParseJSONFile(path)
	} else {
		f, diags = parser.ParseHCLFile(path)
	}
	if diags.HasErrors() || f == nil {
		return out
	}
	schema := &hcl.BodySchema{}
	for name := range p.Kinds {
		schema.Blocks = append(schema.Blocks, hcl.BlockHeaderSchema{Type: name, LabelNames: []string{"name"}})
	}
	content, _, _ := f.Body.PartialContent(schema)
	if content == nil {
		return out
	}
	for _, b := range content.Blocks {
		out[addr.Node{Kind: b.Type, Name: b.Labels[0]}] = true
	}
	return out
}
