package plan

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/zclconf/go-cty/cty"
)

// TestUpstreamEntersKeyByDigest: an upstream's name and stable path never
// enter a key, only its digest; a new digest changes only its dep line.
func TestUpstreamEntersKeyByDigest(t *testing.T) {
	d1, d2 := strings.Repeat("1", 64), strings.Repeat("2", 64)
	lines := func(names [2]string, digests [2]string) ([]hash.Line, string) {
		state := "/p/.kiln"
		cmd := "cat " + state + "/out/exec." + names[1] + "/b " + state + "/out/exec." + names[0] + "/a " + state + "/out/exec.a-x/c"
		in := keyInputs{kind: "exec", version: "1", config: cty.ObjectVal(map[string]cty.Value{"command": cty.StringVal(cmd)}),
			paths: pathNormaliser{state: state, root: "/p"}}
		for i, n := range names {
			in.deps = append(in.deps, upstream{addr: "exec." + n, out: state + "/out/exec." + n, digest: digests[i]})
		}
		k, _, err := keyLines(in)
		if err != nil {
			t.Fatal(err)
		}
		return k.Lines(), k.Sum().String()
	}
	base, baseKey := lines([2]string{"a", "b"}, [2]string{d1, d2})
	want := []string{
		"format " + hash.FormatVersion,
		"kind exec 1",
		`attr command "cat ${upstream:1}/b ${upstream:2}/a $KILN_STATE/out/exec.a-x/c"`,
		"dep 1 " + d2 + " # exec.b",
		"dep 2 " + d1 + " # exec.a",
	}
	if diff := cmp.Diff(want, texts(base)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if _, key := lines([2]string{"renamed", "b"}, [2]string{d1, d2}); key != baseKey {
		t.Errorf("renaming an upstream changed the key")
	}
	changed, key := lines([2]string{"a", "b"}, [2]string{d2, d2})
	if key == baseKey {
		t.Errorf("a new upstream digest left the key as it was")
	}
	if diff := cmp.Diff([]Reason{{Kind: "upstream", Subject: "exec.a", Old: human.Short(d1), New: human.Short(d2)}}, DiffKeyLines(base, changed)); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// TestRenumberedAsAReplacer: numbering the marks in one scan gives what a
// strings.Replacer of every seen mark gives, on strings made of marks of
// seen and unseen upstreams, marks no upstream has (out of range, a sign,
// a leading zero), stray mark characters and plain text.
func TestRenumberedAsAReplacer(t *testing.T) {
	slot := []int{2, 5, 1, 3, 0, 0, 0, 0, 0, 0, 0, 4}
	var pairs []string
	for i, s := range slot {
		if s > 0 {
			pairs = append(pairs, markOpen+strconv.Itoa(i)+markClose, UpstreamRef(s))
		}
	}
	replacer := strings.NewReplacer(pairs...)
	parts := []string{"a", "/x ", markOpen, markClose, "0", "1", "11", "+1", "01", "99", "-0",
		markOpen + "0" + markClose, markOpen + "1" + markClose, markOpen + "3" + markClose, markOpen + "11" + markClose}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if got, want := renumbered(s, slot), replacer.Replace(s); got != want {
			t.Fatalf("renumbered(%q) = %q, a replacer gives %q", s, got, want)
		}
	}
}
