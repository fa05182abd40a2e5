package plan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/zclconf/go-cty/cty"
)

func randDigest(r *rand.Rand) string { return hash.Bytes(fmt.Appendf(nil, "%d", r.Uint64())).String() }

// randomKeyInputs is a built node's key inputs: attributes that name some
// of its upstreams' paths, inputs and key files (relative to the pipeline
// folder, as keyInputs gives them) and upstreams, several of them named by
// no attribute (ordered by digest).
func randomKeyInputs(r *rand.Rand) keyInputs {
	in := keyInputs{kind: "exec", version: "1", paths: pathNormaliser{state: "/p/.kiln", root: "/p"}}
	for i := range 1 + r.IntN(5) {
		in.deps = append(in.deps, upstream{addr: fmt.Sprintf("exec.u%d", i), out: fmt.Sprintf("/p/.kiln/out/exec.u%d", i), digest: randDigest(r)})
	}
	attrs := map[string]cty.Value{}
	var cmd []string
	for i, u := range in.deps {
		if r.IntN(2) == 0 {
			cmd = append(cmd, "cat "+u.out+"/f"+fmt.Sprint(i))
		}
	}
	attrs["command"] = cty.StringVal(strings.Join(append(cmd, "echo done"), "; "))
	if r.IntN(2) == 0 {
		attrs["dir"] = cty.StringVal(in.deps[r.IntN(len(in.deps))].out)
	}
	in.config = cty.ObjectVal(attrs)
	for i := range r.IntN(4) {
		in.inputs = append(in.inputs, [2]string{fmt.Sprintf("data/in%d.txt", i), randDigest(r)})
	}
	if r.IntN(3) == 0 {
		in.inputs = append(in.inputs, [2]string{"data/with space.txt", randDigest(r)})
	}
	for i := range r.IntN(3) {
		in.files = append(in.files, [2]string{fmt.Sprintf("patches/%d.patch", i), randDigest(r)})
	}
	return in
}

func keyOfInputs(t *testing.T, in keyInputs) ([]hash.Line, map[int]string, string) {
	t.Helper()
	k, waiting, err := keyLines(in)
	if err != nil {
		t.Fatal(err)
	}
	return k.Lines(), waiting, k.Sum().String()
}

// TestRestampAgreesWithKeyLines is a property: for a built node's key
// lines, Restamp with new file digests and new upstream states gives exactly the
// lines, waiting marks and key that keyLines writes for the changed inputs.
func TestRestampAgreesWithKeyLines(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	for i := range 3000 {
		in := randomKeyInputs(r)
		built, _, sum := keyOfInputs(t, in)
		if got := hash.LinesSum(built).String(); got != sum {
			t.Fatalf("case %d: LinesSum %s, key %s", i, got, sum)
		}
		files, ups := map[string]string{}, map[string]string{}
		next := in
		next.inputs = append([][2]string(nil), in.inputs...)
		next.files = append([][2]string(nil), in.files...)
		next.deps = append([]upstream(nil), in.deps...)
		for k := range next.inputs {
			if r.IntN(3) == 0 {
				next.inputs[k][1] = randDigest(r)
				files[next.inputs[k][0]] = next.inputs[k][1]
			}
		}
		for k := range next.files {
			if r.IntN(3) == 0 {
				next.files[k][1] = randDigest(r)
				files[next.files[k][0]] = next.files[k][1]
			}
		}
		for k := range next.deps {
			switch r.IntN(4) {
			case 0: // runs first: the recorded digest is assumed, the line waits
				next.deps[k].waiting = true
				ups[next.deps[k].addr] = ""
			case 1: // restored or rebuilt to another digest
				next.deps[k].digest = randDigest(r)
				ups[next.deps[k].addr] = next.deps[k].digest
			}
		}
		wantLines, wantWaiting, wantSum := keyOfInputs(t, next)
		got, waiting, ok := Restamp(built, files, ups)
		if !ok {
			t.Fatalf("case %d: Restamp refused lines it can rewrite:\n%v", i, built)
		}
		if diff := cmp.Diff(wantLines, got); diff != "" {
			t.Fatalf("case %d: lines (-keyLines +Restamp):\n%s", i, diff)
		}
		if diff := cmp.Diff(wantWaiting, waiting); diff != "" {
			t.Fatalf("case %d: waiting (-keyLines +Restamp):\n%s", i, diff)
		}
		if got := hash.LinesSum(got).String(); len(waiting) == 0 && got != wantSum {
			t.Fatalf("case %d: key %s, want %s", i, got, wantSum)
		}
	}
}

// TestRestampRefuses: what Restamp cannot rewrite exactly it refuses, so
// the caller takes the full path.
func TestRestampRefuses(t *testing.T) {
	d := strings.Repeat("a", 64)
	lines := []hash.Line{
		{Label: "format", Value: hash.FormatVersion},
		{Label: "kind", Subject: "exec", Value: "1"},
		{Label: "attr", Subject: "command", Value: `"true"`},
		{Label: "input", Subject: "a.txt", Value: d},
		{Label: "dep", Subject: "1", Value: d, Note: "exec.u"},
	}
	for _, tc := range []struct {
		name       string
		files, ups map[string]string
	}{
		{"unknown input", map[string]string{"b.txt": d}, nil},
		{"unknown upstream", nil, map[string]string{"exec.v": d}},
	} {
		if _, _, ok := Restamp(lines, tc.files, tc.ups); ok {
			t.Errorf("%s: Restamp accepted it", tc.name)
		}
	}
	noNote := append(lines[:4:4], hash.Line{Label: "dep", Subject: "1", Value: d})
	if _, _, ok := Restamp(noNote, nil, nil); ok {
		t.Error("a dep line without its address: Restamp accepted it")
	}
	outOfOrder := append(lines[:4:4], hash.Line{Label: "dep", Subject: "2", Value: d, Note: "exec.u"})
	if _, _, ok := Restamp(outOfOrder, nil, nil); ok {
		t.Error("a dep line numbered 2 first: Restamp accepted it")
	}
}
