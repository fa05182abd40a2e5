package lockfile_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/providers"
)

// TestBrokenLockStopsThePipeline: a lock edited into nonsense or written by
// a newer kiln stops plan and apply with a diagnostic naming its line, and
// is left exactly as it was.
func TestBrokenLockStopsThePipeline(t *testing.T) {
	tests := []struct {
		name, edit, summary string
		line                int
	}{
		{"nonsense", "version = 1\n\nnode \"exec.a\" {\n  key = zzz(\n}\n", "Invalid expression", 5},
		{"bad hex", "version = 1\n\npin \"git_repo.a\" {\n  commit = \"not-a-sha\"\n}\n", "Invalid pin commit", 4},
		{"newer kiln", "version = 7\n\nhologram \"x\" {}\n", "Lock file written by a newer kiln", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := pipelineDir(t, "exec \"a\" {\n  command = \"echo a > $KILN_OUT/a\"\n}\n")
			mustApply(t, dir)
			if _, ok := engine.QuickCheck(engine.Options{Path: dir}); !ok {
				t.Fatal("no no-change certificate after a clean apply; this test needs one")
			}
			writeFile(t, lockfile.Path(dir), tt.edit)
			w, diags, err := engine.Open(engine.Options{Path: dir, Kinds: providers.All()})
			if err != nil {
				t.Fatal(err)
			}
			if !diags.HasErrors() {
				pl, _ := w.Plan(context.Background())
				t.Fatalf("a broken lock was accepted; plan: %+v", pl)
			}
			d := diags[len(diags)-1]
			if tt.summary != "" && d.Summary != tt.summary {
				t.Errorf("summary = %q, want %q", d.Summary, tt.summary)
			}
			if d.Subject == nil || !strings.HasSuffix(d.Subject.Filename, lockfile.FileName) || d.Subject.Start.Line != tt.line {
				t.Errorf("diagnostic at %v, want %s line %d: %s", d.Subject, lockfile.FileName, tt.line, diags)
			}
			if _, ok := w.Files()[d.Subject.Filename]; !ok {
				t.Errorf("the lock's source is not available to show the line")
			}
			if got := readFile(t, lockfile.Path(dir)); got != tt.edit {
				t.Errorf("the broken lock was rewritten:\n%s", got)
			}
			if n, ok := engine.QuickCheck(engine.Options{Path: dir}); ok {
				t.Errorf("the no-change check answered %d nodes up to date over a broken lock", n)
			}
		})
	}
}
