package lockfile

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// canonicalLock is a lock as kiln writes it, with n nodes and some pins,
// every value plain.
func canonicalLock(n int) *File {
	f := New()
	for i := range n {
		f.Nodes[fmt.Sprintf("exec.n_%d_%d", i/10, i%10)] = Node{Key: fmt.Sprintf("%064x", i+1), Digest: fmt.Sprintf("%064x", 7*i+3), Kiln: "0.1.0"}
	}
	f.Nodes["exec.sweep[2]"] = Node{Key: keyA, Digest: digestA, Kiln: "0.1.0"}
	f.Pins["git_repo.verl"] = map[string]string{"commit": commitA, "ref": "main", "url": "https://github.com/volcengine/verl.git"}
	f.Pins["fetch.weights"] = map[string]string{"checksum": sumA, "url": "https://example.test/w.bin?a=1&b=2"}
	return f
}

// TestCanonicalLockReadWithoutHCL: a lock kiln wrote, with plain values, is
// read by the line reader, and to the same content the HCL parser reads.
func TestCanonicalLockReadWithoutHCL(t *testing.T) {
	want := canonicalLock(300)
	src := want.Bytes()
	got, ok := parseCanonical(src)
	if !ok {
		t.Fatalf("a canonical lock was not read as one:\n%s", src[:400])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	viaHCL, _, diags := parseHCL(src, FileName)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if diff := cmp.Diff(viaHCL, got); diff != "" {
		t.Errorf("line reader and HCL parser disagree (-hcl +lines):\n%s", diff)
	}
	f, hf, diags := Parse(src, FileName)
	if diags.HasErrors() || hf != nil || !f.Equal(want) {
		t.Errorf("Parse: hcl file %v, diags %v, equal %v; want the line reader's result", hf != nil, diags, f.Equal(want))
	}
}

// TestCanonicalLockNeverDisagrees: every lock the line reader accepts —
// kiln's own, and each of many edits of it (a byte removed, changed or
// added anywhere) — reads to the content the HCL parser gives, and the HCL
// parser accepts it; what the line reader refuses is left to the HCL parser.
func TestCanonicalLockNeverDisagrees(t *testing.T) {
	base := string(canonicalLock(4).Bytes())
	written := string(mustParse(t, written).Bytes())
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("\n \"{}=#$%\\abcdef0123456789._[]-:/xyzpinode")
	accepted := 0
	for _, src := range []string{base, written} {
		check := func(s string) {
			got, ok := parseCanonical([]byte(s))
			if !ok {
				return
			}
			accepted++
			want, _, diags := parseHCL([]byte(s), FileName)
			if diags.HasErrors() {
				t.Fatalf("the line reader accepted what the HCL parser refuses (%v):\n%s", diags, s)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("they disagree (-hcl +lines):\n%s\n%s", diff, s)
			}
		}
		check(src)
		for i := 0; i < len(src); i++ {
			check(src[:i] + src[i+1:])
			c := alphabet[rng.Intn(len(alphabet))]
			check(src[:i] + string(c) + src[i+1:])
			check(src[:i] + string(c) + src[i:])
		}
	}
	if accepted == 0 {
		t.Fatal("the line reader accepted nothing")
	}
}

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, _, diags := parseHCL([]byte(src), FileName)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f
}

// TestQuotePlainAsHCLWrite: the quoting of plain strings is hclwrite's.
func TestQuotePlainAsHCLWrite(t *testing.T) {
	var all strings.Builder
	for c := byte(0x20); c <= 0x7e; c++ {
		all.WriteByte(c)
	}
	cases := []string{"", "0.1.0", "https://example.test/w.bin?a=1&b=2", all.String(), "{x}", "a{", "$", "${x}", "%{x}", "%", "\\", "\"", "é", "\t", "\x7f"}
	for c := byte(0x20); c <= 0x7e; c++ {
		cases = append(cases, string(c), "a"+string(c)+"{b")
	}
	for _, s := range cases {
		want := string(hclwrite.TokensForValue(cty.StringVal(s)).Bytes())
		if got := quote(s); got != want {
			t.Errorf("quote(%q) = %s, hclwrite writes %s", s, got, want)
		}
	}
}
