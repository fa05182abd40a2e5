package config

import (
	"bytes"
	"os"
	"runtime"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A large pipeline file is parsed in pieces, in parallel: the HCL parser
// first turns the whole file into one slice of tokens (about 40 bytes of
// tokens per byte of source, 0.5 GB for a pipeline of 100,000 nodes) and
// runs on one core. The file is cut where a line "}" ends a block at the
// top level and the next line starts another ("}\nexec ..."), every piece is
// parsed on its own with its true position in the file, and the pieces'
// bodies are joined. A cut inside anything still open (a heredoc, a block
// comment, a map, a nested block) leaves the piece before it unterminated,
// which the parser always reports; so any diagnostic in any piece, or an
// argument set in two pieces, means the whole file is parsed again as one,
// and what the user sees — the syntax tree, every error — is what the
// parser gives for the whole file. A piece written in the plain form of
// generated pipelines is read without the parser's tokens (plainparse.go),
// into the tree the parser would build; any other piece is parsed.

// pieceSize is the size a file is cut into: small enough that the tokens
// of the pieces being parsed stay small and that a block the plain reading
// does not understand sends little to the parser, large enough that a
// piece is worth a goroutine.
var pieceSize = 64 << 10

// parseHCLFile reads and parses one HCL pipeline file.
func parseHCLFile(filename string) (*hcl.File, hcl.Diagnostics) {
	src, err := os.ReadFile(filename)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read file",
			Detail:   "The configuration file " + quote(filename) + " could not be read.",
		}}
	}
	return ParseHCL(src, filename)
}

// ParseHCL parses an HCL file's bytes as hclsyntax.ParseConfig does from
// its start, in pieces when it is large. A file nested deeper than
// MaxNesting is refused before the parser sees it.
func ParseHCL(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if diags := CheckNesting(src, filename, false); diags.HasErrors() {
		return &hcl.File{Body: hcl.EmptyBody(), Bytes: src}, diags
	}
	if f, ok := parsePieces(src, filename, pieceSize); ok {
		return f, nil
	}
	return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
}

func quote(s string) string { return `"` + s + `"` }

// parsePieces parses src cut into pieces of about size bytes; false when
// it cannot be cut or a piece does not parse cleanly on its own.
func parsePieces(src []byte, filename string, size int) (*hcl.File, bool) {
	cuts := cutPoints(src, size)
	if len(cuts) == 0 {
		return nil, false
	}
	type piece struct {
		start hcl.Pos
		end   int
		file  *hcl.File
		ok    bool
	}
	pieces := make([]piece, 0, len(cuts)+1)
	line, from := 1, 0
	for _, c := range append(cuts, len(src)) {
		pieces = append(pieces, piece{start: hcl.Pos{Line: line, Column: 1, Byte: from}, end: c})
		line += bytes.Count(src[from:c], []byte{'\n'})
		from = c
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(len(pieces), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				p := &pieces[i]
				p.file, p.ok = parsePiece(src[p.start.Byte:p.end], filename, p.start)
			}
		})
	}
	for i := range pieces {
		next <- i
	}
	close(next)
	wg.Wait()

	first, ok := pieces[0].file.Body.(*hclsyntax.Body)
	if !pieces[0].ok || !ok {
		return nil, false
	}
	for _, p := range pieces[1:] {
		b, ok := p.file.Body.(*hclsyntax.Body)
		if !p.ok || !ok {
			return nil, false
		}
		if first.Attributes == nil {
			first.Attributes = hclsyntax.Attributes{}
		}
		for name, a := range b.Attributes {
			if first.Attributes[name] != nil {
				return nil, false // "Attribute redefined", from the whole file
			}
			first.Attributes[name] = a
		}
		first.Blocks = append(first.Blocks, b.Blocks...)
		first.SrcRange.End = b.SrcRange.End
		first.EndRange = b.EndRange
	}
	// The first piece's navigation (which block a position is in, for
	// diagnostics) walks its body, which now holds every piece's.
	return &hcl.File{Body: first, Bytes: src, Nav: pieces[0].file.Nav}, true
}

// parsePiece parses one piece, plainly when it is written in the plain
// form (plainparse.go); false when the parser reports anything.
func parsePiece(src []byte, filename string, start hcl.Pos) (*hcl.File, bool) {
	if body, ok := parsePlain(src, filename, start); ok {
		// The file and navigation the parser makes of nothing, holding
		// the body it would have made of src.
		f, _ := hclsyntax.ParseConfig(nil, filename, start)
		*f.Body.(*hclsyntax.Body) = *body
		f.Bytes = src
		return f, true
	}
	f, diags := hclsyntax.ParseConfig(src, filename, start)
	return f, len(diags) == 0
}

// cutPoints are the offsets, about size bytes apart, just after a line "}"
// that is followed (after blank lines) by a line starting with a letter:
// where one top-level block ends and the next begins, when nothing is left
// open. A cut where something is still open is caught by the parser.
func cutPoints(src []byte, size int) []int {
	var cuts []int
	for from := size; from < len(src); {
		i := bytes.Index(src[from:], []byte("\n}\n"))
		if i < 0 {
			break
		}
		c := from + i + 3
		if c >= len(src)-size/2 {
			break // the last piece would be small
		}
		next := c
		for next < len(src) && (src[next] == '\n' || src[next] == '\r') {
			next++ // blank lines between blocks
		}
		if next < len(src) && isLetter(src[next]) {
			cuts = append(cuts, c)
			from = c + size
			continue
		}
		from = c - 1
	}
	return cuts
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
