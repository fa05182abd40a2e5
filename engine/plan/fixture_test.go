package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/kilnbuild/kiln/providers/exec"
	"github.com/zclconf/go-cty/cty"
)

// writeFiles creates each file (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openDecider loads the pipeline in dir with the exec kind and an empty
// state, as a plan would.
func openDecider(t *testing.T, dir string) *Decider {
	t.Helper()
	p, diags := config.Load(dir, config.Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
	if diags.HasErrors() {
		t.Fatalf("loading %s: %s", dir, diags.Error())
	}
	st, err := state.Load(p.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	store := state.OpenStore(p.StateDir)
	return &Decider{Pipeline: p, State: st, Store: store, Stat: hash.NewStatCache(), Records: OpenRecords(st, store)}
}

// decideWith decides the node at address a with the given upstream digests
// (address → digest) as if those nodes were built.
func decideWith(t *testing.T, d *Decider, a string, upstream map[string]string) *Decision {
	t.Helper()
	na, err := addr.Parse(a)
	if err != nil {
		t.Fatal(err)
	}
	n := d.Pipeline.Node(na)
	if n == nil {
		t.Fatalf("no node %s", a)
	}
	vals := NewValues()
	for ua, dg := range upstream {
		u, err := addr.Parse(ua)
		if err != nil {
			t.Fatal(err)
		}
		vals.Set(u, cty.ObjectVal(map[string]cty.Value{
			"out":     cty.StringVal(d.Pipeline.OutPath(u)),
			"digest":  cty.StringVal(dg),
			"blocked": cty.StringVal(""),
		}))
	}
	dec := d.Decide(context.Background(), n, vals)
	if dec.Diags.HasErrors() {
		t.Fatalf("deciding %s: %s", a, dec.Diags.Error())
	}
	return dec
}

// texts are key lines as they show (hash.Line.Show), for matching in tests.
func texts(lines []hash.Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Show()
	}
	return out
}

// fixture writes key lines in the notation "label subject value" ("label
// value" for format), a dep line as "dep ADDR DIGEST".
func fixture(text ...string) []hash.Line {
	var out []hash.Line
	for _, t := range text {
		label, rest, _ := strings.Cut(t, " ")
		if label == "format" {
			out = append(out, hash.Line{Label: label, Value: rest})
			continue
		}
		subject, value, _ := strings.Cut(rest, " ")
		l := hash.Line{Label: label, Subject: subject, Value: value}
		if label == "dep" {
			l.Subject, l.Note = "1", subject
		}
		out = append(out, l)
	}
	return out
}
