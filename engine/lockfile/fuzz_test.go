package lockfile

import (
	"bytes"
	"testing"
)

// FuzzParse: Parse never panics on any input, a lock it accepts writes
// back in the canonical form, which parses to the same content and writes
// the same bytes again, and what the line reader accepts the HCL parser
// reads to the same content.
func FuzzParse(f *testing.F) {
	f.Add([]byte(written))
	f.Add(canonicalLock(3).Bytes())
	f.Add([]byte("version = 1\n"))
	f.Add([]byte("version = 2\n"))
	f.Add([]byte("version = 1\nnode \"exec.a\" {\n  key = \"zz\"\n}\n"))
	f.Add([]byte("version = 1\npin \"git_repo.x\" {\n  commit = \"abc\"\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if lines, ok := parseCanonical(src); ok {
			viaHCL, _, diags := parseHCL(src, "kiln.lock.hcl")
			if diags.HasErrors() || !viaHCL.Equal(lines) {
				t.Fatalf("the line reader and the HCL parser disagree (%v):\n%s", diags, src)
			}
		}
		lf, _, diags := Parse(src, "kiln.lock.hcl")
		if diags.HasErrors() {
			if lf != nil {
				t.Fatalf("a lock with errors came back: %v", diags)
			}
			return
		}
		out := lf.Bytes()
		again, _, diags := Parse(out, "kiln.lock.hcl")
		if diags.HasErrors() {
			t.Fatalf("the canonical form of an accepted lock does not parse: %v\n%s", diags, out)
		}
		if !again.Equal(lf) {
			t.Fatalf("the canonical form holds other content:\n%s", out)
		}
		if !bytes.Equal(again.Bytes(), out) {
			t.Fatalf("the canonical form is not stable:\n%s\n---\n%s", out, again.Bytes())
		}
	})
}
