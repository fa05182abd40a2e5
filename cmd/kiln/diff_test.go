package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/state"
)

// The golden tests of this package share one -update flag, whichever file
// declares it; package variables are initialised before init runs.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files")
	}
}

// updateGolden reports whether -update was given.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// diffRepo is a git repository made for the diff tests, with fixed author
// and dates so commit ids are the same on every run.
type diffRepo struct {
	t   *testing.T
	dir string
}

func newDiffRepo(t *testing.T, dir string) *diffRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &diffRepo{t: t, dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *diffRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=kiln", "GIT_AUTHOR_EMAIL=kiln@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=kiln", "GIT_COMMITTER_EMAIL=kiln@example.com", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *diffRepo) write(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

func (r *diffRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	r.write(files)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// diffPipeline is the pipeline of the diff tests at one revision.
func diffPipeline(pin string, epochs int, eval, old bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `variable "epochs" {
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
  command   = "(echo epochs=${var.epochs}; cat ${git_repo.upstream.out}/model.txt ${exec.prep.out}/clean.csv) > $KILN_OUT/model.txt"
  resources = { npu = 8 }
}

exec "report" {
  command = "cat ${exec.train.out}/model.txt > $KILN_OUT/report.txt"
}
`, epochs, pin)
	if eval {
		b.WriteString(`
exec "eval" {
  command   = "wc -l ${exec.train.out}/model.txt > $KILN_OUT/eval.txt"
  resources = { npu = 2 }
}
`)
	}
	if old {
		b.WriteString(`
exec "old" {
  command = "echo retired > $KILN_OUT/old.txt"
}
`)
	}
	return b.String()
}

// runKiln runs a kiln command in this process.
func runKiln(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	c := &cli{stdout: &out, stderr: &errOut, getenv: func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return os.Getenv(k)
	}}
	code = c.main(args)
	return out.String(), errOut.String(), code
}

// setDurations rewrites the recorded durations of a state, which real runs
// make different every time, and forgets the nodes in forget, as if they
// had never run.
func setDurations(t *testing.T, dir string, durations map[string]time.Duration, forget ...string) {
	t.Helper()
	lock, err := state.AcquireLock(dir, state.Holder{PID: os.Getpid(), Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	s, err := state.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, err := state.OpenWriter(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	for addr, d := range durations {
		rec := s.Records[addr]
		if rec == nil {
			t.Fatalf("no record of %s in the state", addr)
		}
		c := *rec
		c.Duration = d
		if err := w.Commit(&c); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range forget {
		if err := w.Forget(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDiffGolden makes a repository whose commits change a git pin, a
// variable, an input file, add a node and remove one; applies the last
// commit for real and fixes the recorded durations; then checks kiln diff
// between consecutive commits as text, JSON and Markdown against
// testdata/diff (go test -run TestDiffGolden -update rewrites them).
func TestDiffGolden(t *testing.T) {
	root := t.TempDir()
	up := newDiffRepo(t, filepath.Join(root, "upstream"))
	pin1 := up.commit("one", map[string]string{"model.txt": "weights 1\n"})
	pin2 := up.commit("two", map[string]string{"model.txt": "weights 2\n"})
	repo := newDiffRepo(t, filepath.Join(root, "work"))
	commits := []string{
		repo.commit("base", map[string]string{"pipeline.hcl": diffPipeline(pin1, 1, false, true), "data/raw.csv": "1,2\n", ".gitignore": ".kiln/\n"}),
		repo.commit("pin", map[string]string{"pipeline.hcl": diffPipeline(pin2, 1, false, true)}),
		repo.commit("variable", map[string]string{"pipeline.hcl": diffPipeline(pin2, 3, false, true)}),
		repo.commit("input", map[string]string{"data/raw.csv": "1,2\n3,4\n"}),
		repo.commit("add", map[string]string{"pipeline.hcl": diffPipeline(pin2, 3, true, true)}),
		repo.commit("remove", map[string]string{"pipeline.hcl": diffPipeline(pin2, 3, true, false)}),
	}
	names := map[string]string{pin1: "upstream-1", pin2: "upstream-2"}
	for i, c := range commits {
		names[c] = fmt.Sprintf("commit-%d", i)
	}

	if out, errOut, code := runKiln("apply", "-quiet", "-resource", "npu=8", repo.dir); code != 0 {
		t.Fatalf("kiln apply exited %d:\n%s\n%s", code, out, errOut)
	}
	setDurations(t, filepath.Join(repo.dir, ".kiln"), map[string]time.Duration{
		"git_repo.upstream": 95 * time.Second,
		"exec.prep":         12 * time.Minute,
		"exec.train":        6 * time.Hour,
		"exec.eval":         45 * time.Minute,
	}, "exec.report")

	cases := []struct {
		name     string
		old, new int
		changes  bool
	}{
		{"pin", 0, 1, true},
		{"variable", 1, 2, true},
		{"input", 2, 3, true},
		{"added", 3, 4, true},
		{"removed", 4, 5, true},
		{"nothing", 5, 5, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, format := range []struct{ flag, ext string }{{"text", "txt"}, {"json", "json"}, {"markdown", "md"}} {
				out, errOut, code := runKiln("diff", "-format", format.flag, "-detailed-exitcode", commits[tc.old], commits[tc.new], "--", repo.dir)
				want := 0
				if tc.changes {
					want = 2
				}
				if code != want {
					t.Fatalf("kiln diff -format %s exited %d, want %d:\n%s", format.flag, code, want, errOut)
				}
				golden(t, filepath.Join("testdata", "diff", tc.name+"."+format.ext), normalise(out, names))
			}
		})
	}

	// The working tree against HEAD, with relative revision names and the
	// default format: an uncommitted edit of the input file.
	t.Run("working tree", func(t *testing.T) {
		repo.write(map[string]string{"data/raw.csv": "1,2\n3,4\n5,6\n"})
		t.Chdir(repo.dir)
		out, errOut, code := runKiln("diff", "HEAD~1")
		if code != 0 {
			t.Fatalf("kiln diff HEAD~1 exited %d:\n%s", code, errOut)
		}
		golden(t, filepath.Join("testdata", "diff", "working-tree.txt"), normalise(out, names))
	})
}

// testWD is the folder of the test sources, where golden files live,
// whatever the current folder of a test is.
var testWD, _ = os.Getwd()

var kilnVersionJSON = regexp.MustCompile(`"kiln_version": "[^"]*"`)

// normalise replaces commit ids with names and the kiln version with a
// placeholder, so golden files do not depend on the machine.
func normalise(s string, names map[string]string) string {
	for id, name := range names {
		s = strings.ReplaceAll(s, id, "<"+name+">")
		s = strings.ReplaceAll(s, id[:12], "<"+name+">")
	}
	return kilnVersionJSON.ReplaceAllString(s, `"kiln_version": "<version>"`)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(testWD, path)
	}
	if updateGolden() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDiffGolden -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}

func TestDiffErrors(t *testing.T) {
	repo := newDiffRepo(t, t.TempDir())
	good := `exec "a" { command = "true" }` + "\n"
	repo.commit("broken", map[string]string{"pipeline.hcl": "exec \"a\" {\n  command = \n}\n"})
	repo.commit("fixed", map[string]string{"pipeline.hcl": good})
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no revision", []string{"diff", "--", repo.dir}, []string{"name one or two git revisions"}},
		{"three revisions", []string{"diff", "HEAD", "HEAD", "HEAD", "--", repo.dir}, []string{"got 3"}},
		{"unknown revision", []string{"diff", "no-such-rev", "--", repo.dir}, []string{`unknown revision: "no-such-rev" is not a commit of`, "git log"}},
		{"unknown format", []string{"diff", "-format", "yaml", "HEAD", "--", repo.dir}, []string{`unknown -format "yaml"`}},
		{"broken at the old revision", []string{"diff", "HEAD~1", "--", repo.dir}, []string{
			"the pipeline does not load at HEAD~1 (", "Error: Invalid expression", "on HEAD~1:pipeline.hcl line 2", "command = ",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runKiln(tt.args...)
			if code != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q; want 1 and nothing on stdout", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
		})
	}
}
