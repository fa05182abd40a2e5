package metrics

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Lines as verl d62da49 prints them: Tracking's console backend calls
// LocalLogger.log, which prints concat_dict_to_str(data, step): "step:N"
// and each numeric metric as key:pprint.pformat(value), joined by " - ".
// Under Ray, the TaskRunner actor's output is prefixed with its name and
// pid (in colour on a terminal); numpy 2 scalars print as np.float64(x).
func TestVerlLines(t *testing.T) {
	spec := mustSpec(t, "verl", nil, "", nil)
	for name, tc := range map[string]struct {
		line string
		want []Sample
	}{
		"PPO step": {
			"step:1 - actor/entropy:0.6931471805599453 - actor/pg_loss:-0.012 - actor/lr:1e-06 - critic/score/mean:0.25 - response_length/mean:512.75 - timing_s/step:41.2 - perf/throughput:1203.5",
			[]Sample{s(1, "actor/entropy", 0.6931471805599453, "actor/pg_loss", -0.012, "actor/lr", 1e-06, "critic/score/mean", 0.25, "response_length/mean", 512.75, "timing_s/step", 41.2, "perf/throughput", 1203.5)},
		},
		"numpy 2 scalars": {
			"step:3 - critic/score/mean:np.float64(0.375) - response_length/clip_ratio:np.float64(0.0) - num_turns/mean:np.float64(2.5) - global_seqlen/balanced_max:np.int64(10234) - actor/grad_norm:np.float32(nan)",
			[]Sample{s(3, "critic/score/mean", 0.375, "response_length/clip_ratio", 0.0, "num_turns/mean", 2.5, "global_seqlen/balanced_max", 10234, "actor/grad_norm", nan)},
		},
		"Ray actor prefix in colour": {
			"\x1b[36m(TaskRunner pid=2718281)\x1b[0m step:12 - training/global_step:12 - training/epoch:0 - critic/rewards/mean:-0.9",
			[]Sample{s(12, "training/global_step", 12, "training/epoch", 0, "critic/rewards/mean", -0.9)},
		},
		"SFT trainer": {
			"step:5 - train/loss:0.8472 - train/lr(1e-3):0.01 - train/time(s):1.93",
			[]Sample{s(5, "train/loss", 0.8472, "train/lr(1e-3)", 0.01, "train/time(s)", 1.93)},
		},
		"validation before training": {
			"step:0 - val-core/aime_2025/acc/mean@30:0.11 - val-aux/num_turns/min:2 - val-core/aime_2025/reward/best@32/mean:0.4",
			[]Sample{s(0, "val-core/aime_2025/acc/mean@30", 0.11, "val-aux/num_turns/min", 2, "val-core/aime_2025/reward/best@32/mean", 0.4)},
		},
		"nan, inf, booleans, big ints": {
			"step:7 - actor/grad_norm:nan - critic/vf_explained_var:-inf - perf/max_memory:inf - response/aborted_ratio:0 - done:True - skipped:False - perf/total_num_tokens:123456789012345678901234567890",
			[]Sample{s(7, "actor/grad_norm", nan, "critic/vf_explained_var", negInf, "perf/max_memory", posInf, "response/aborted_ratio", 0, "done", 1, "skipped", 0, "perf/total_num_tokens", 1.2345678901234568e29)},
		},
		"Decimal and Fraction": {
			"step:8 - a:Decimal('1.5') - b:Fraction(1, 4)",
			[]Sample{s(8, "a", 1.5, "b", 0.25)},
		},
		"a key with a colon": {
			"step:2 - val-core/aime:2024/reward/mean@1:0.5",
			[]Sample{s(2, "val-core/aime:2024/reward/mean@1", 0.5)},
		},
		"trailing spaces and CRLF": {
			"step:9 - loss:0.5 \r\n",
			[]Sample{s(9, "loss", 0.5)},
		},
		"after a progress bar on the same line": {
			"Training Progress:  10%|█         | 1/10 [00:01<00:09,  1.00s/it]\rTraining Progress:  20%|██        | 2/10 [00:02<00:08,  1.00s/it]step:2 - loss:0.25",
			[]Sample{s(2, "loss", 0.25)},
		},
		"bad values dropped, good ones kept": {
			"step:4 - a:1 - garbage - b:np.float64(oops) - :3 - c: - d:tensor(0.5) - e:(1+2j) - f:2",
			[]Sample{s(4, "a", 1, "f", 2)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := collect(t, spec, tc.line+"\n")
			if diff := cmp.Diff(tc.want, got, sampleCmp...); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

func TestVerlNotMetricLines(t *testing.T) {
	spec := mustSpec(t, "verl", nil, "", nil)
	for _, line := range []string{
		"",
		"step: 1 - a:1",
		"step:x - a:1",
		"step:-1 - a:1",
		"global_step:3 - a:1",
		"timing_s/step:3 - a:1",
		"step:3",
		"step:3 a:1",
		"step:3rd - a:1",
		"step:3 - only garbage",
		"step:3 - a: - b:x",
		"Final validation metrics: {'val/loss': 0.5}",
		"(TaskRunner pid=1) Training Progress: 0%| | 0/10 [00:00<?, ?it/s]",
		"step:99999999999999999999 - a:1",
	} {
		if got := collect(t, spec, line+"\n"); len(got) != 0 {
			t.Errorf("%q gave samples %v, want none", line, got)
		}
	}
}

// TestVerlPythonRepr prints metric lines with Python's own pprint.pformat,
// as verl's logger does, and parses them.
func TestVerlPythonRepr(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed: install the Debian package python3")
	}
	script := `
import pprint
metrics = {"a": 0.1, "b": 1e-06, "c": 1.5e+20, "d": float("nan"), "e": float("inf"),
           "f": -0.0, "g": True, "h": 2**70, "i": 3, "j": 1/3, "skipped": "text", "k": -float("inf")}
for step in (1, 2):
    parts = ["step:%d" % step] + ["%s:%s" % (k, pprint.pformat(v)) for k, v in metrics.items() if not isinstance(v, str)]
    print(" - ".join(parts))
`
	out, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	want := s(0, "a", 0.1, "b", 1e-06, "c", 1.5e+20, "d", nan, "e", posInf, "f", 0.0, "g", 1, "h", 1180591620717411303424.0, "i", 3, "j", 1.0/3, "k", negInf)
	got := collect(t, mustSpec(t, "verl", nil, "", nil), string(out))
	if len(got) != 2 {
		t.Fatalf("parsed %d samples from\n%s", len(got), out)
	}
	for i, g := range got {
		want.Step = int64(i + 1)
		if diff := cmp.Diff(want, g, sampleCmp...); diff != "" {
			t.Errorf("line %q (-want +got):\n%s", strings.Split(string(out), "\n")[i], diff)
		}
	}
}
