package lockfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/zclconf/go-cty/cty"
)

// Load reads the lock at path. A missing file is an empty lock. The
// returned hcl.File (nil when there is none, or when the lock was read in
// its canonical form) lets diagnostics show the offending line.
func Load(path string) (*File, *hcl.File, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil, nil
	}
	if err != nil {
		return nil, nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read the lock file",
			Detail:   fmt.Sprintf("%v. Fix its permissions, or restore it from git.", err),
		}}
	}
	return Parse(src, path)
}

var (
	rootSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "version", Required: true}},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "pin", LabelNames: []string{"address"}},
			{Type: "node", LabelNames: []string{"address"}},
		},
	}
	nodeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "key", Required: true}, {Name: "digest"}, {Name: "kiln", Required: true},
	}}
	hex64    = regexp.MustCompile(`^[0-9a-f]{64}$`)
	hex40    = regexp.MustCompile(`^[0-9a-f]{40}$`)
	sha256Re = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// pinFormats are the pin names whose values have a fixed form.
var pinFormats = map[string]struct {
	re   *regexp.Regexp
	want string
}{
	"commit":   {hex40, "a full commit SHA: 40 lowercase hex digits"},
	"revision": {hex40, "a full revision SHA: 40 lowercase hex digits"},
	"checksum": {sha256Re, `"sha256:" and 64 lowercase hex digits`},
}

// Parse reads a lock from src; filename names it in diagnostics. A lock in
// kiln's canonical form is read without the HCL parser (parseCanonical), and
// no hcl.File comes back for it.
func Parse(src []byte, filename string) (*File, *hcl.File, hcl.Diagnostics) {
	if f, ok := parseCanonical(src); ok {
		return f, nil, nil
	}
	return parseHCL(src, filename)
}

// parseHCL reads a lock with the HCL parser, reporting what is wrong.
func parseHCL(src []byte, filename string) (*File, *hcl.File, hcl.Diagnostics) {
	hf, diags := config.ParseHCL(src, filename) // a lock of 10,000 nodes is 2 MB
	if diags.HasErrors() {
		return nil, hf, withAdvice(diags)
	}
	// The version decides how to read the rest, so it is read first: a
	// newer lock is refused, not reported as a heap of unknown blocks.
	vc, _, diags := hf.Body.PartialContent(&hcl.BodySchema{Attributes: rootSchema.Attributes})
	if diags.HasErrors() {
		return nil, hf, withAdvice(diags)
	}
	if d := checkVersion(vc.Attributes["version"]); d != nil {
		return nil, hf, hcl.Diagnostics{d}
	}
	content, diags := hf.Body.Content(rootSchema)
	f := New()
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		a, d := blockAddr(b, seen)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		switch b.Type {
		case "pin":
			pins, d := readPins(b)
			diags = append(diags, d...)
			f.Pins[a] = pins
		case "node":
			n, d := readNode(b)
			diags = append(diags, d...)
			f.Nodes[a] = n
		}
	}
	if diags.HasErrors() {
		return nil, hf, withAdvice(diags)
	}
	return f, hf, nil
}

func checkVersion(a *hcl.Attribute) *hcl.Diagnostic {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || v.Type() != cty.Number || !v.AsBigFloat().IsInt() {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid lock file version",
			Detail:  fmt.Sprintf("version must be a whole number (this kiln writes version = %d). Restore the lock file from git, or delete it and run kiln lock to write it anew.", Version),
			Subject: a.Expr.Range().Ptr(),
		}
	}
	n, _ := v.AsBigFloat().Int64()
	switch {
	case n > Version:
		return &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Lock file written by a newer kiln",
			Detail:  fmt.Sprintf("This lock file has version %d; this kiln reads lock files up to version %d. It was written by a newer kiln: upgrade kiln (kiln version prints yours). kiln leaves the file untouched.", n, Version),
			Subject: a.Expr.Range().Ptr(),
		}
	case n < 1:
		return &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Invalid lock file version",
			Detail:  fmt.Sprintf("version %d does not exist; this kiln writes version = %d.", n, Version),
			Subject: a.Expr.Range().Ptr(),
		}
	}
	return nil
}

// blockAddr reads a block's address label, refusing malformed and repeated
// addresses.
func blockAddr(b *hcl.Block, seen map[string]hcl.Range) (string, hcl.Diagnostics) {
	rng := b.LabelRanges[0]
	a, err := addr.Parse(b.Labels[0])
	if err != nil {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid node address",
			Detail: err.Error() + ".", Subject: rng.Ptr(),
		}}
	}
	id := b.Type + " " + a.String()
	if prev, ok := seen[id]; ok {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Duplicate " + b.Type + " block",
			Detail:  fmt.Sprintf("%s %q is already given at %s; a lock holds one %s block per node. Remove one of them.", b.Type, a.String(), prev, b.Type),
			Subject: rng.Ptr(),
		}}
	}
	seen[id] = rng
	return a.String(), nil
}

func readPins(b *hcl.Block) (map[string]string, hcl.Diagnostics) {
	attrs, diags := b.Body.JustAttributes()
	pins := map[string]string{}
	for _, a := range sortedAttrs(attrs) {
		s, d := literal(a)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if f, ok := pinFormats[a.Name]; ok && !f.re.MatchString(s) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid pin " + a.Name,
				Detail:  fmt.Sprintf("%s = %q is not %s.", a.Name, s, f.want),
				Subject: a.Expr.Range().Ptr(),
			})
			continue
		}
		pins[a.Name] = s
	}
	if len(attrs) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Empty pin block",
			Detail: "A pin block holds at least one pinned value; remove the block.", Subject: b.DefRange.Ptr(),
		})
	}
	return pins, diags
}

func readNode(b *hcl.Block) (Node, hcl.Diagnostics) {
	content, diags := b.Body.Content(nodeSchema)
	var n Node
	for _, f := range []struct {
		name string
		dst  *string
	}{{"key", &n.Key}, {"digest", &n.Digest}, {"kiln", &n.Kiln}} {
		a, ok := content.Attributes[f.name]
		if !ok {
			continue
		}
		s, d := literal(a)
		diags = append(diags, d...)
		if !d.HasErrors() && f.name != "kiln" && !hex64.MatchString(s) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Invalid node " + f.name,
				Detail:  fmt.Sprintf("%s = %q is not a SHA-256: 64 lowercase hex digits.", f.name, s),
				Subject: a.Expr.Range().Ptr(),
			})
		}
		*f.dst = s
	}
	return n, diags
}

// literal reads an attribute that must be a quoted string without
// references or function calls.
func literal(a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError, Summary: "Invalid value for " + a.Name,
			Detail:  a.Name + " must be a quoted string; a lock holds no expressions.",
			Subject: a.Expr.Range().Ptr(),
		}}
	}
	return v.AsString(), nil
}

func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Range.Start.Byte < out[j].Range.Start.Byte })
	return out
}

// withAdvice adds, once, what to do about a broken lock.
func withAdvice(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			d.Detail += " kiln.lock.hcl is written by kiln: restore it from git (git checkout -- kiln.lock.hcl), or delete it and run kiln lock to resolve the pins again. kiln will not plan or apply until it loads."
			break
		}
	}
	return diags
}
