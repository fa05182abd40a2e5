package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/providers"
)

// pipelineText is a small pipeline: a pinned checkout, a step with an input
// file, a training step that uses both (and the checkout's pinned commit,
// an export known before anything runs), and a report after it.
func pipelineText(pin string, epochs int, extra string) string {
	return fmt.Sprintf(`variable "epochs" {
  type    = number
  default = %d
}

git_repo "upstream" {
  url    = "${path.root}/../upstream"
  commit = "%s"
}

exec "prep" {
  command = "cp ${path.root}/data/raw.csv $KILN_OUT/clean.csv"
  inputs  = ["data/raw.csv"]
}

exec "train" {
  dir       = git_repo.upstream.out
  command   = "echo epochs=${var.epochs} at ${git_repo.upstream.commit} > $KILN_OUT/model.txt"
  env       = { DATA = exec.prep.out }
  resources = { npu = 8 }
}

exec "report" {
  command = "cat ${exec.train.out}/model.txt > $KILN_OUT/report.txt"
}
%s`, epochs, pin, extra)
}

// outcome is the classification of a report, for comparing.
type outcome struct {
	Changed     map[string][]string // address → reason messages
	Added       []string
	Removed     []string
	Invalidated map[string][]string // address → because
	Unresolved  []string            // "address at revision"
}

func outcomeOf(r *Report) outcome {
	o := outcome{Changed: map[string][]string{}, Invalidated: map[string][]string{}}
	for _, c := range r.Changed {
		for _, ch := range c.Changes {
			o.Changed[c.Address] = append(o.Changed[c.Address], ch.Message)
		}
	}
	for _, n := range r.Added {
		o.Added = append(o.Added, n.Address)
	}
	for _, n := range r.Removed {
		o.Removed = append(o.Removed, n.Address)
	}
	for _, n := range r.Invalidated {
		o.Invalidated[n.Address] = n.Because
	}
	for _, u := range r.Unresolved {
		o.Unresolved = append(o.Unresolved, u.Address+" at "+u.Revision)
	}
	return o
}

func TestCompareClassifiesChanges(t *testing.T) {
	root := t.TempDir()
	up := newGitRepo(t, filepath.Join(root, "upstream"))
	pin1 := up.commit("one", map[string]string{"a.txt": "one\n"})
	pin2 := up.commit("two", map[string]string{"a.txt": "two\n"})
	repo := newGitRepo(t, filepath.Join(root, "work"))
	base := repo.commit("base", map[string]string{"pipeline.hcl": pipelineText(pin1, 1, ""), "data/raw.csv": "1,2\n"})
	pinned := repo.commit("pin", map[string]string{"pipeline.hcl": pipelineText(pin2, 1, "")})
	variable := repo.commit("variable", map[string]string{"pipeline.hcl": pipelineText(pin2, 3, "")})
	input := repo.commit("input", map[string]string{"data/raw.csv": "1,2\n3,4\n"})
	added := repo.commit("add", map[string]string{"pipeline.hcl": pipelineText(pin2, 3, `
exec "eval" {
  command = "cat ${exec.train.out}/model.txt"
}
`)})
	removed := repo.commit("remove", map[string]string{"pipeline.hcl": pipelineText(pin2, 3, "")})

	tests := []struct {
		name     string
		old, new string
		want     outcome
	}{
		{"git pin", base, pinned, outcome{
			Changed: map[string][]string{
				"git_repo.upstream": {fmt.Sprintf("attribute commit changed: %q → %q", pin1, pin2)},
				"exec.train":        {fmt.Sprintf("attribute command changed: \"echo epochs=1 at %s > $KILN_OUT/model.txt\" → \"echo epochs=1 at %s > $KILN_OUT/model.txt\"", pin1, pin2)},
			},
			Invalidated: map[string][]string{"exec.report": {"exec.train"}},
		}},
		{"variable", pinned, variable, outcome{
			Changed: map[string][]string{
				"exec.train": {fmt.Sprintf("attribute command changed: \"echo epochs=1 at %s > $KILN_OUT/model.txt\" → \"echo epochs=3 at %s > $KILN_OUT/model.txt\"", pin2, pin2)},
			},
			Invalidated: map[string][]string{"exec.report": {"exec.train"}},
		}},
		{"input file", variable, input, outcome{
			Changed: map[string][]string{
				"exec.prep": {"input data/raw.csv changed: " + contentDigest(t, "1,2\n") + " → " + contentDigest(t, "1,2\n3,4\n")},
			},
			Invalidated: map[string][]string{"exec.train": {"exec.prep"}, "exec.report": {"exec.train"}},
		}},
		{"added node", input, added, outcome{
			Changed: map[string][]string{}, Added: []string{"exec.eval"}, Invalidated: map[string][]string{},
		}},
		{"removed node", added, removed, outcome{
			Changed: map[string][]string{}, Removed: []string{"exec.eval"}, Invalidated: map[string][]string{},
		}},
		{"nothing", removed, removed, outcome{Changed: map[string][]string{}, Invalidated: map[string][]string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Compare(context.Background(), Options{Path: filepath.Join(repo.dir, "pipeline.hcl"), Old: tt.old, New: tt.new, Kinds: providers.All()})
			if err != nil {
				t.Fatal(err)
			}
			got := outcomeOf(r)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("report (-want +got):\n%s", d)
			}
			if r.HasChanges() != (tt.name != "nothing") {
				t.Errorf("HasChanges = %v", r.HasChanges())
			}
		})
	}
}

// contentDigest is the short digest kiln gives a file with this content.
func contentDigest(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := hash.File(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.Short()
}
