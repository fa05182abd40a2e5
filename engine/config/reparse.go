package config

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A node block's syntax tree is most of a large pipeline's memory — some
// 2.4 KB of tree for the 100 bytes of a generated block, half of a
// 100,000-node plan's heap as it starts deciding — and it is read only
// while the pipeline loads and as each of the block's nodes is evaluated.
// So once the pipeline is loaded (letGoOfTrees), a block written in HCL's
// native syntax keeps its source bytes instead, which the file holds
// anyway, and Body parses them again the first time it is asked: with the
// plain parser where it reads them (plainparse.go), with HCL's otherwise.
// Both make the tree the load made, positions included, from the same
// bytes at the same place in the file. The tree is then kept until
// ForgetBlock lets go of both, once none of the block's nodes is to be
// evaluated again.

// letGoOfTrees lets go of the files' trees (ForgetFiles) and of each node
// block's, keeping its source to parse again: from its type to its closing
// brace (Source can end before it, on a block of one line).
func (p *Pipeline) letGoOfTrees() {
	type at struct {
		file string
		byte int
	}
	whole := map[at]*hclsyntax.Block{}
	for name, f := range p.Files {
		if body, ok := f.Body.(*hclsyntax.Body); ok {
			for _, b := range body.Blocks {
				whole[at{name, b.TypeRange.Start.Byte}] = b
			}
		}
	}
	for _, b := range p.Blocks {
		hb := whole[at{b.DeclRange.Filename, b.DeclRange.Start.Byte}]
		if _, native := b.syntax.(*hclsyntax.Body); !native || hb == nil || hb.TypeRange.Start != b.Source.Start {
			continue
		}
		r := hb.Range()
		if src, ok := p.source(r); ok {
			b.metaTaken = b.syntax != hb.Body
			b.syntax, b.src = nil, withNewline(src, p.Files[r.Filename].Bytes, r.End.Byte)
		}
	}
	p.ForgetFiles()
}

// Body is the block's own attributes, meta-arguments removed; nil once
// ForgetBlock let go of them.
func (b *Block) Body() hcl.Body {
	b.syntaxMu.Lock()
	defer b.syntaxMu.Unlock()
	if b.syntax == nil && b.src != nil {
		b.syntax = parseBlockBody(b.src, b.Source, b.metaTaken)
	}
	return b.syntax
}

// Held reports whether the block's nodes can still be evaluated: its tree
// or its source is held.
func (b *Block) Held() bool {
	b.syntaxMu.Lock()
	defer b.syntaxMu.Unlock()
	return b.syntax != nil || b.src != nil
}

// parseBlockBody parses src, the source of the top-level block at r, into
// the body decodeBlock kept of it: the block's own, or, when it took out
// meta-arguments (metaTaken), what is left.
func parseBlockBody(src []byte, r hcl.Range, metaTaken bool) hcl.Body {
	var body *hclsyntax.Body
	if bytes.HasSuffix(src, []byte("\n")) {
		body, _ = parsePlain(src, r.Filename, r.Start)
	}
	if body == nil || len(body.Blocks) != 1 {
		f, diags := hclsyntax.ParseConfig(src, r.Filename, r.Start)
		if diags.HasErrors() {
			return nil // the bytes the load parsed do not change
		}
		body = f.Body.(*hclsyntax.Body)
	}
	if len(body.Blocks) != 1 {
		return nil
	}
	own := body.Blocks[0].Body
	if !metaTaken {
		return own
	}
	_, remain, _ := own.PartialContent(metaSchema())
	return remain
}

// withNewline is src, the bytes of file up to end, with the newline after
// them when there is one: the plain parser reads a block to the newline
// after its "}".
func withNewline(src, file []byte, end int) []byte {
	if end < len(file) && file[end] == '\n' {
		return file[end-len(src) : end+1]
	}
	return src
}
