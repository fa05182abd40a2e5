package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scoreFile is shaped like verl's recipe/retool/retool.py around the line
// MindSpeed-RL's retool.patch changes.
const scoreFile = `import re


class CustomRLHFDataset:
    def row(self, row):
        return row


def compute_score(data_source, solution_str, ground_truth, extra_info):
    # use \\boxed{...} answer
    result = math_dapo.compute_score(solution_str, ground_truth, strict_box_verify=True)

    # encourage model to call tools
    num_turns = extra_info["num_turns"]
    return result
`

const scoreFixed = `import re


class CustomRLHFDataset:
    def row(self, row):
        return row


def compute_score(data_source, solution_str, ground_truth, extra_info, **merged_kwargs):
    # use \\boxed{...} answer
    result = math_dapo.compute_score(solution_str, ground_truth, strict_box_verify=True)

    # encourage model to call tools
    num_turns = extra_info["num_turns"]
    return result
`

// retoolPatch has the exact shape of MindSpeed-RL's
// verl_npu/verl_npu/patch/verl/d62da4950/retool.patch: its last line is an
// empty context line, a single space, with no newline after it.
const retoolPatch = "diff --git a/recipe/retool/retool.py b/recipe/retool/retool.py\n" +
	"index 7bcc7045..7305ca09 100644\n" +
	"--- a/recipe/retool/retool.py\n" +
	"+++ b/recipe/retool/retool.py\n" +
	"@@ -6,7 +6,7 @@ class CustomRLHFDataset:\n" +
	"         return row\n" +
	" \n" +
	" \n" +
	"-def compute_score(data_source, solution_str, ground_truth, extra_info):\n" +
	"+def compute_score(data_source, solution_str, ground_truth, extra_info, **merged_kwargs):\n" +
	"     # use \\\\boxed{...} answer\n" +
	"     result = math_dapo.compute_score(solution_str, ground_truth, strict_box_verify=True)\n" +
	" "

// wellFormed is the same change as a clean unified diff, with the hunk
// header at line, its context lines optionally replaced.
func wellFormed(line string, firstContext string) string {
	return "--- a/recipe/retool/retool.py\n" +
		"+++ b/recipe/retool/retool.py\n" +
		"@@ -" + line + ",7 +" + line + ",7 @@\n" +
		" " + firstContext + "\n" +
		" \n" +
		" \n" +
		"-def compute_score(data_source, solution_str, ground_truth, extra_info):\n" +
		"+def compute_score(data_source, solution_str, ground_truth, extra_info, **merged_kwargs):\n" +
		"     # use \\\\boxed{...} answer\n" +
		"     result = math_dapo.compute_score(solution_str, ground_truth, strict_box_verify=True)\n" +
		" \n"
}

// TestPatchShapes applies patches the way upstream projects really ship
// them: git apply takes what it can, and GNU patch what git apply refuses,
// with the tool, the refusal and any offset or fuzz reported.
func TestPatchShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		patch     string
		tool      string   // which applied it
		reportHas []string // substrings of the patches attribute
	}{
		{
			name:      "missing final newline on a context line",
			patch:     retoolPatch,
			tool:      "GNU patch",
			reportHas: []string{"git apply refused it: corrupt patch at line 13"},
		},
		{
			name:      "CRLF line ends",
			patch:     strings.ReplaceAll(wellFormed("6", "        return row"), "\n", "\r\n"),
			tool:      "GNU patch",
			reportHas: []string{"git apply refused it: "},
		},
		{
			name:      "offset",
			patch:     wellFormed("9", "        return row"),
			tool:      "git apply",
			reportHas: []string{"recipe/retool/retool.py: hunk #1 succeeded at 6 (offset -3 lines)"},
		},
		{
			name:      "fuzz",
			patch:     wellFormed("6", "        return the_row"),
			tool:      "GNU patch",
			reportHas: []string{"patch failed: recipe/retool/retool.py:6", "recipe/retool/retool.py: hunk #1 succeeded at 6 with fuzz 1"},
		},
	}
	src := newSource(t)
	sha := src.commit("one", map[string]string{"recipe/retool/retool.py": scoreFile})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			attr := writePatches(t, root, []string{"retool.patch"}, []string{tt.patch})
			b := testBuild(t, decode(t, pinned(src.dir, sha, attr)), t.TempDir(), root)
			res := build(t, b)

			if got := readFile(t, filepath.Join(b.Dir, "recipe/retool/retool.py")); got != scoreFixed {
				t.Errorf("retool.py after the patch:\n%s\nwant:\n%s", got, scoreFixed)
			}
			report := res.Attrs["patches"]
			if !strings.HasPrefix(report, "retool.patch: "+tt.tool) {
				t.Errorf("patches attribute %q does not say %s applied retool.patch", report, tt.tool)
			}
			for _, want := range tt.reportHas {
				if !strings.Contains(report, want) {
					t.Errorf("patches attribute %q does not contain %q", report, want)
				}
			}
			if log := b.Log.(interface{ String() string }).String(); !strings.Contains(log, "kiln: applied patch "+report) {
				t.Errorf("the log does not report the patch:\n%s", log)
			}
			// Neither backups nor rejects are left in the tree: only the
			// patched file differs from the commit.
			if changed := gitIn(t, b.Dir, "diff-tree", "-r", "--name-only", sha+"^{tree}", res.Attrs["tree"]); changed != "recipe/retool/retool.py" {
				t.Errorf("files changed by the patch: %q", changed)
			}
			if _, err := os.Stat(filepath.Join(b.Dir, "recipe/retool/retool.py.orig")); err == nil {
				t.Error("GNU patch left a .orig backup")
			}
		})
	}
}

// TestPatchNeitherApplies: a patch that neither git apply nor GNU patch
// applies fails the build naming the patch, the file and the hunk, and
// changes nothing.
func TestPatchNeitherApplies(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"recipe/retool/retool.py": scoreFile, "b.txt": "b\n"})
	root := t.TempDir()
	// The first file's hunk applies; the second's does not.
	bad := "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n" +
		"--- a/recipe/retool/retool.py\n+++ b/recipe/retool/retool.py\n@@ -1,3 +1,3 @@\n import re\n-import os\n+import sys\n \n"
	attr := writePatches(t, root, []string{"bad.patch"}, []string{bad})
	b := testBuild(t, decode(t, pinned(src.dir, sha, attr)), t.TempDir(), root)
	_, err := testRepo().Build(context.Background(), b)
	if err == nil {
		t.Fatal("a patch that does not apply was applied")
	}
	for _, want := range []string{
		"patch bad.patch does not apply",
		"git apply: patch failed: recipe/retool/retool.py:1",
		"GNU patch: recipe/retool/retool.py: hunk #1 FAILED at 1",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if got := readFile(t, filepath.Join(b.Dir, "b.txt")); got != "b\n" {
		t.Errorf("b.txt = %q: the part of the patch that applied was left in the tree", got)
	}
}

// TestPatchWithoutGNUPatch: when git apply refuses a patch and GNU patch is
// not installed, the error says so and how to install it.
func TestPatchWithoutGNUPatch(t *testing.T) {
	t.Parallel()
	src := newSource(t)
	sha := src.commit("one", map[string]string{"recipe/retool/retool.py": scoreFile})
	root := t.TempDir()
	attr := writePatches(t, root, []string{"retool.patch"}, []string{retoolPatch})
	r := testRepo()
	r.Patch = filepath.Join(t.TempDir(), "no-patch-here")
	_, err := r.Build(context.Background(), testBuild(t, decode(t, pinned(src.dir, sha, attr)), t.TempDir(), root))
	if err == nil {
		t.Fatal("built without GNU patch")
	}
	for _, want := range []string{"corrupt patch at line 13", "GNU patch", "apt-get install patch"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}
