package state

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
)

// TestLoadVersion3KeyLines: a snapshot of format 3 holds key lines as text;
// they load as typed lines whose texts are the lines as written, so the key
// they sum to is the record's, and the next write stores them as fields.
func TestLoadVersion3KeyLines(t *testing.T) {
	d := hash.Bytes([]byte("x")).String()
	text := []string{
		"format " + hash.FormatVersion,
		"kind exec 1",
		`attr command "make all"`,
		"attr " + strconv.Quote("env {\"A\":\"1\n2\"}"),
		"input my%20data/a.csv " + d,
		"fact toolchain.version 8.1",
		"dep 1 " + d + ` # exec.a["k"]`,
		"run umask 022",
	}
	want := []hash.Line{
		{Label: "format", Value: hash.FormatVersion},
		{Label: "kind", Subject: "exec", Value: "1"},
		{Label: "attr", Subject: "command", Value: `"make all"`},
		{Label: "attr", Subject: "env", Value: "{\"A\":\"1\n2\"}"},
		{Label: "input", Subject: "my data/a.csv", Value: d},
		{Label: "fact", Subject: "toolchain.version", Value: "8.1"},
		{Label: "dep", Subject: "1", Value: d, Note: `exec.a["k"]`},
		{Label: "run", Subject: "umask", Value: "022"},
	}
	var lines string
	for i, l := range text {
		if i > 0 {
			lines += ","
		}
		lines += quoteJSON(l)
	}
	bare := slices.Clone(text)
	bare[6] = "dep 1 " + d // notes are not hashed
	key := hash.Lines(bare...).String()
	v3 := `{"version":3,"lineage":"l1","serial":3,"records":[{"addr":"exec.a","kind":"exec","key":"` + key + `","key_lines":[` + lines + `],"digest":"d","entry":"k","started":"0001-01-01T00:00:00Z","duration_ns":0}]}`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(v3), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustLoad(t, dir).Records["exec.a"]
	if r == nil {
		t.Fatal("exec.a did not load")
	}
	if diff := cmp.Diff(want, []hash.Line(r.KeyLines)); diff != "" {
		t.Errorf("key lines (-want +got):\n%s", diff)
	}
	if got := hash.LinesSum(r.KeyLines).String(); got != key {
		t.Errorf("the loaded lines sum to %s, the record's key is %s", got, key)
	}
	after := apply(t, dir, built("exec.b", "k2", "k2-r2", "d2"))
	if diff := cmp.Diff(want, []hash.Line(after.Records["exec.a"].KeyLines)); diff != "" {
		t.Errorf("key lines after a write (-want +got):\n%s", diff)
	}
}

func quoteJSON(s string) string {
	out := []byte{'"'}
	for _, c := range []byte(s) {
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		default:
			out = append(out, c)
		}
	}
	return string(append(out, '"'))
}
