package run

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers/exec"
	"github.com/zclconf/go-cty/cty"
)

// A chain a → b → c → d, each built: which results a run of d may read,
// given what b's and c's records say they name.
func TestReadableUpstreamsFollowWhatResultsName(t *testing.T) {
	dir := t.TempDir()
	hcl := `exec "a" { command = "true" }
exec "b" { command = "echo ${exec.a.out}" }
exec "c" { command = "echo ${exec.b.out}" }
exec "d" { command = "echo ${exec.c.out}" }
`
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := config.Load(dir, config.Options{Kinds: []kind.Kind{&exec.Kind{}}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	d := p.Node(addr.Node{Kind: "exec", Name: "d"})
	key := func(c byte) string { return strings.Repeat(string(c), 64) }
	recs := map[string]*state.Record{
		"exec.a": {Key: key('a'), Digest: "x", Entry: key('a') + "-1"},
		"exec.b": {Key: key('b'), Digest: "x", Entry: key('b') + "-1", RefsScanned: true, Refs: []string{key('a')}},
		"exec.c": {Key: key('c'), Digest: "x", Entry: key('c') + "-1", RefsScanned: true},
	}
	record := func(a string) (*state.Record, bool) { r, ok := recs[a]; return r, ok }
	readable := func(cfg cty.Value) string {
		var out []string
		for _, a := range readableUpstreams(p, d, cfg, closureOf(p, d.Deps, false), record) {
			out = append(out, a.String())
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	if got := readable(cty.NilVal); got != "exec.c" {
		t.Errorf("c names nothing: readable = %q, want exec.c", got)
	}
	recs["exec.c"].Refs = []string{key('b')}
	if got := readable(cty.NilVal); got != "exec.a exec.b exec.c" {
		t.Errorf("c names b, which names a: readable = %q, want all three", got)
	}
	recs["exec.c"].Refs, recs["exec.b"].Refs = nil, nil
	cfg := cty.ObjectVal(map[string]cty.Value{"env": cty.ListVal([]cty.Value{cty.StringVal("PY=/x/.kiln/out/exec.b/bin/python")})})
	if got := readable(cfg); got != "exec.b exec.c" {
		t.Errorf("the configuration names b: readable = %q, want exec.b exec.c", got)
	}
	recs["exec.c"].RefsScanned = false
	if got := readable(cty.NilVal); got != "exec.a exec.b exec.c" {
		t.Errorf("c was not scanned: readable = %q, want its whole closure", got)
	}
}

// A configuration that holds "out/" in a path of no result (a pipeline
// under bench/out/n10000, a checkout/ folder) names no node: the run reads
// what it would without it, and the records of its closure are not read
// to look for one, which at every node of a deep pipeline is quadratic.
func TestReadableUpstreamsIgnoreOutInOtherPaths(t *testing.T) {
	dir := t.TempDir()
	hcl := `exec "a" { command = "true" }
exec "b" { command = "echo ${exec.a.out}" }
exec "c" { command = "echo ${exec.b.out}" }
`
	if err := os.WriteFile(filepath.Join(dir, "pipeline.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := config.Load(dir, config.Options{Kinds: []kind.Kind{&exec.Kind{}}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	c := p.Node(addr.Node{Kind: "exec", Name: "c"})
	key := func(ch byte) string { return strings.Repeat(string(ch), 64) }
	recs := map[string]*state.Record{
		"exec.a": {Key: key('a'), Digest: "x", Entry: key('a') + "-1", RefsScanned: true},
		"exec.b": {Key: key('b'), Digest: "x", Entry: key('b') + "-1", RefsScanned: true},
	}
	read := map[string]int{}
	record := func(a string) (*state.Record, bool) { read[a]++; r, ok := recs[a]; return r, ok }
	for _, path := range []string{"/home/u/checkout/kiln/src/x.txt", "/srv/bench/out/n10000/kiln/src/n_0_0.txt", "/x/out/exec.nosuch/y"} {
		clear(read)
		cfg := cty.ObjectVal(map[string]cty.Value{"inputs": cty.ListVal([]cty.Value{cty.StringVal(path)})})
		got := readableUpstreams(p, c, cfg, closureOf(p, c.Deps, false), record)
		if len(got) != 1 || got[0].String() != "exec.b" {
			t.Errorf("%s: readable = %v, want exec.b alone", path, got)
		}
		if read["exec.a"] > 0 {
			t.Errorf("%s: the record of exec.a, in the closure but not named, was read %d times", path, read["exec.a"])
		}
	}
	cfg := cty.ObjectVal(map[string]cty.Value{"env": cty.StringVal("A=/x/.kiln/out/exec.a/bin")})
	if got := readableUpstreams(p, c, cfg, closureOf(p, c.Deps, false), record); len(got) != 2 {
		t.Errorf("the configuration names exec.a by its stable link: readable = %v, want exec.b and exec.a", got)
	}
}
