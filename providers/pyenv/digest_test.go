package pyenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalisePaths(t *testing.T) {
	state, root := "/work/p/.kiln", "/work/p"
	got := normalisePaths([]string{
		"-e /work/p/.kiln/out/git_repo.verl  # Editable install with no version control (verl==0.6.1)",
		"vllm_ascend @ file:///work/p/.kiln/store/ab12/vllm_ascend-0.11.0-cp311-linux_x86_64.whl#sha256=00",
		"-e /work/p/mylib",
		"-e /work/p2/other",
		"-e /work/p/.kiln2/x",
		"numpy==1.26.4",
	}, state, root)
	want := []string{
		"-e $KILN_ROOT/.kiln2/x",
		"-e $KILN_ROOT/mylib",
		"-e $KILN_STATE/out/git_repo.verl  # Editable install with no version control (verl==0.6.1)",
		"-e /work/p2/other",
		"numpy==1.26.4",
		"vllm_ascend @ file://$KILN_STATE/store/ab12/vllm_ascend-0.11.0-cp311-linux_x86_64.whl#sha256=00",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("normalisePaths (-want +got):\n%s", d)
	}
}

func TestDigestOf(t *testing.T) {
	freeze := []string{"numpy==1.26.4", "torch==2.7.1"}
	base := digestOf("3.11.7 (main, Jan  1 2024)\n[GCC 12.2.0]", freeze)
	if base != digestOf("3.11.7 (main, Jan 1 2024) [GCC 12.2.0]", freeze) {
		t.Error("the digest depends on how sys.version breaks its lines")
	}
	for name, other := range map[string]string{
		"python":  digestOf("3.11.8 (main, Jan  1 2024)\n[GCC 12.2.0]", freeze),
		"version": digestOf("3.11.7 (main, Jan  1 2024)\n[GCC 12.2.0]", []string{"numpy==1.26.4", "torch==2.7.2"}),
		"added":   digestOf("3.11.7 (main, Jan  1 2024)\n[GCC 12.2.0]", append([]string{"a==1"}, freeze...)),
	} {
		if other == base {
			t.Errorf("changing the %s leaves the digest unchanged", name)
		}
	}
}

func TestEntryName(t *testing.T) {
	for entry, want := range map[string]string{
		"torch==2.7.1":           "torch",
		"torch_npu==2.7.1.post1": "torch-npu",
		"vllm_ascend @ file:///x/vllm_ascend-0.11.0.whl#sha256=00":                                   "vllm-ascend",
		"-e $KILN_STATE/out/git_repo.verl  # Editable install with no version control (verl==0.6.1)": "verl",
		"-e git+https://github.com/volcengine/verl.git@d62da49#egg=verl":                             "verl",
		"-e /somewhere": "-e /somewhere",
	} {
		if got := entryName(entry); got != want {
			t.Errorf("entryName(%q) = %q, want %q", entry, got, want)
		}
	}
}

func TestDriftReport(t *testing.T) {
	old := []string{"numpy==1.26.4", "ray==2.46.0", "torch==2.7.1"}
	now := []string{"numpy==1.26.4", "ray==2.48.0", "triton==3.3.0"}
	got := driftReport("3.11.7 (main)", "3.11.8 (main)", old, now)
	want := "python 3.11.7 → 3.11.8; added: triton==3.3.0; removed: torch==2.7.1; changed: ray==2.46.0 → ray==2.48.0"
	if got != want {
		t.Errorf("driftReport:\n got %q\nwant %q", got, want)
	}
	if got := driftReport("3.11.7", "3.11.7", old, old); got != "" {
		t.Errorf("no change reported as %q", got)
	}
}
