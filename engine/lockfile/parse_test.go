package lockfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const commitA = "d62da4950573d7a4b7ef2362337952e7ab59e78d"

var (
	keyA    = strings.Repeat("a1", 32)
	digestA = strings.Repeat("b2", 32)
	sumA    = "sha256:" + strings.Repeat("c3", 32)
)

// written is a lock as kiln writes it.
var written = `# kiln.lock.hcl: written by kiln; commit it. Edit the pipeline, not this file.
version = 1

pin "fetch.weights" {
  checksum = "` + sumA + `"
  url      = "https://example.test/w.bin?a=1&b=\"2\""
}

pin "git_repo.verl" {
  commit = "` + commitA + `"
  ref    = "main"
  url    = "https://github.com/volcengine/verl.git"
}

node "exec.each[\"x\"]" {
  key    = "` + keyA + `"
  digest = "` + digestA + `"
  kiln   = "0.1.0"
}

node "exec.sweep[2]" {
  key    = "` + keyA + `"
  digest = "` + digestA + `"
  kiln   = "0.1.0"
}

node "exec.sweep[10]" {
  key    = "` + keyA + `"
  digest = "` + digestA + `"
  kiln   = "0.1.0"
}

node "exec.tmpl" {
  key    = "` + keyA + `"
  digest = "` + digestA + `"
  kiln   = "$${not} %%{a} template"
}
`

func TestRoundTripByteForByte(t *testing.T) {
	f, _, diags := Parse([]byte(written), FileName)
	if diags.HasErrors() {
		t.Fatalf("Parse: %s", diags)
	}
	if diff := cmp.Diff(written, string(f.Bytes())); diff != "" {
		t.Errorf("load + write changed the bytes (-loaded +written):\n%s", diff)
	}
	if got := f.Nodes["exec.tmpl"].Kiln; got != "${not} %{a} template" {
		t.Errorf("template escapes decoded to %q", got)
	}
	if got := f.Pins["fetch.weights"]["url"]; got != `https://example.test/w.bin?a=1&b="2"` {
		t.Errorf("quoted url decoded to %q", got)
	}
}

// TestRoundTripLargeLock: a lock of thousands of nodes (parsed in pieces,
// see config.ParseHCL) loads and writes back byte for byte.
func TestRoundTripLargeLock(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.SplitAfterN(written, "\n\n", 2)[0])
	for i := range 3000 {
		fmt.Fprintf(&b, "node \"exec.n%05d\" {\n  key    = \"%s\"\n  digest = \"%s\"\n  kiln   = \"0.1.0\"\n}\n\n", i, keyA, digestA)
	}
	src := strings.TrimSuffix(b.String(), "\n")
	f, _, diags := Parse([]byte(src), FileName)
	if diags.HasErrors() {
		t.Fatalf("Parse: %s", diags)
	}
	if len(f.Nodes) != 3000 {
		t.Fatalf("%d nodes, want 3000", len(f.Nodes))
	}
	if diff := cmp.Diff(src, string(f.Bytes())); diff != "" {
		t.Errorf("load + write changed the bytes (-loaded +written):\n%s", diff)
	}
}

func TestWriteIsStableAndSkipsUnchanged(t *testing.T) {
	f := New()
	f.SetPins("git_repo.b", map[string]string{"commit": commitA, "ref": "main", "url": "u"})
	f.SetPins("git_repo.a", map[string]string{"commit": commitA, "ref": "v1", "url": "u"})
	f.Nodes["exec.z"] = Node{Key: keyA, Digest: digestA, Kiln: "0.1.0"}
	path := filepath.Join(t.TempDir(), FileName)
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	g, _, diags := Load(path)
	if diags.HasErrors() {
		t.Fatalf("Load: %s", diags)
	}
	if !g.Equal(f) {
		t.Errorf("loaded lock differs from the written one")
	}
	if strings.Index(string(first), "git_repo.a") > strings.Index(string(first), "git_repo.b") {
		t.Errorf("pins are not sorted by address:\n%s", first)
	}
	if err := g.Write(path); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if diff := cmp.Diff(string(first), string(second)); diff != "" {
		t.Errorf("second write changed the file:\n%s", diff)
	}
}

func TestLoadMissingIsEmpty(t *testing.T) {
	f, hf, diags := Load(filepath.Join(t.TempDir(), FileName))
	if diags.HasErrors() || hf != nil || len(f.Pins)+len(f.Nodes) != 0 {
		t.Fatalf("Load of a missing lock = %v, %v, %s; want an empty lock", f, hf, diags)
	}
}

func TestRetainAndRecordDropsLeftNodes(t *testing.T) {
	f, _, _ := Parse([]byte(written), FileName)
	f.Retain(func(a string) bool { return strings.HasPrefix(a, "git_repo.") || a == "exec.tmpl" })
	var got []string
	for a := range f.Pins {
		got = append(got, "pin "+a)
	}
	for a := range f.Nodes {
		got = append(got, "node "+a)
	}
	want := []string{"pin git_repo.verl", "node exec.tmpl"}
	if diff := cmp.Diff(want, got, cmpSorted); diff != "" {
		t.Errorf("Retain kept (-want +got):\n%s", diff)
	}
}

var cmpSorted = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// TestParseErrors: every broken lock is refused with a diagnostic naming
// the line of the fault, never loaded or rewritten.
func TestParseErrors(t *testing.T) {
	node := func(body string) string { return "version = 1\n\nnode \"exec.a\" {\n" + body + "}\n" }
	full := "  key    = \"" + keyA + "\"\n  digest = \"" + digestA + "\"\n  kiln   = \"0.1.0\"\n"
	tests := []struct {
		name, src string
		line      int
		summary   string
	}{
		{"syntax", "version = 1\npin \"git_repo.a\" {\n  commit = \n}\n", 3, "Invalid expression"},
		{"newer version", "version = 2\nfuture \"x\" {}\n", 1, "Lock file written by a newer kiln"},
		{"version not a number", "version = \"one\"\n", 1, "Invalid lock file version"},
		{"version zero", "version = 0\n", 1, "Invalid lock file version"},
		{"missing version", "pin \"git_repo.a\" {\n  commit = \"" + commitA + "\"\n}\n", 1, "Missing required argument"},
		{"unknown block", "version = 1\n\nprovider \"x\" {\n}\n", 3, "Unsupported block type"},
		{"unknown top attribute", "version = 1\nextra = 2\n", 2, "Unsupported argument"},
		{"unknown node attribute", node(full + "  when = \"now\"\n"), 7, "Unsupported argument"},
		{"missing node attribute", node("  digest = \"" + digestA + "\"\n  kiln = \"0.1.0\"\n"), 3, "Missing required argument"},
		{"bad key hex", node(strings.Replace(full, keyA, "xyz", 1)), 4, "Invalid node key"},
		{"uppercase digest", node(strings.Replace(full, digestA, strings.ToUpper(digestA), 1)), 5, "Invalid node digest"},
		{"bad commit hex", "version = 1\npin \"git_repo.a\" {\n  commit = \"d62da49\"\n}\n", 3, "Invalid pin commit"},
		{"bad checksum", "version = 1\npin \"fetch.a\" {\n  checksum = \"md5:00\"\n}\n", 3, "Invalid pin checksum"},
		{"expression value", "version = 1\npin \"git_repo.a\" {\n  ref = var.x\n}\n", 3, "Invalid value for ref"},
		{"number value", node(strings.Replace(full, `"0.1.0"`, "1", 1)), 6, "Invalid value for kiln"},
		{"bad address", "version = 1\npin \"verl\" {\n  ref = \"main\"\n}\n", 2, "Invalid node address"},
		{"duplicate node", node(full) + "\nnode \"exec.a\" {\n" + full + "}\n", 9, "Duplicate node block"},
		{"nested block", "version = 1\npin \"git_repo.a\" {\n  x {\n  }\n}\n", 3, "Unexpected \"x\" block"},
		{"empty pin", "version = 1\npin \"git_repo.a\" {\n}\n", 2, "Empty pin block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, diags := Parse([]byte(tt.src), FileName)
			if !diags.HasErrors() {
				t.Fatalf("Parse accepted the lock: %+v", f)
			}
			if f != nil {
				t.Errorf("Parse returned a lock with errors")
			}
			d := diags[0]
			if d.Summary != tt.summary {
				t.Errorf("summary = %q, want %q (detail: %s)", d.Summary, tt.summary, d.Detail)
			}
			if d.Subject == nil || d.Subject.Filename != FileName || d.Subject.Start.Line != tt.line {
				t.Errorf("subject = %v, want %s line %d", d.Subject, FileName, tt.line)
			}
			if tt.name == "newer version" && !strings.Contains(d.Detail, "upgrade kiln") {
				t.Errorf("newer lock detail does not say to upgrade: %s", d.Detail)
			}
		})
	}
}

// A node whose result varies (deterministic = false) is locked without a
// digest; the lock reads back the same by either parser and writes back
// byte for byte.
func TestVaryingNodeRoundTrip(t *testing.T) {
	f := New()
	f.Nodes["exec.train"] = Node{Key: strings.Repeat("a1", 32), Kiln: "0.1.0"}
	f.Nodes["exec.prep"] = Node{Key: strings.Repeat("b2", 32), Digest: strings.Repeat("c3", 32), Kiln: "0.1.0"}
	src := f.Bytes()
	if strings.Count(string(src), "digest") != 1 {
		t.Fatalf("want one digest line, for exec.prep:\n%s", src)
	}
	fast, ok := parseCanonical(src)
	if !ok {
		t.Fatalf("the canonical reader refused the lock:\n%s", src)
	}
	slow, _, diags := parseHCL(src, FileName)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, g := range []*File{fast, slow} {
		if !g.Equal(f) || string(g.Bytes()) != string(src) {
			t.Errorf("read back %+v, want %+v", g.Nodes, f.Nodes)
		}
	}
}
