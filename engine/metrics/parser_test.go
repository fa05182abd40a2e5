package metrics

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A trainer's log as it really reads: warnings, tqdm bars redrawn with
// carriage returns, two ranks' lines interleaved, a metric line written in
// pieces, and a last line still being written.
const interleavedLog = "" +
	"(WorkerDict pid=311) [W compile.py] torch.compile is not supported on NPU, falling back\n" +
	"(TaskRunner pid=310) Training Progress:   0%|          | 0/3 [00:00<?, ?it/s]\r" +
	"(TaskRunner pid=310) step:1 - critic/score/mean:np.float64(-0.5) - actor/entropy:np.float64(1.2)\n" +
	"(WorkerDict pid=312) rank 1: step:1 - loss:9\n" +
	"(TaskRunner pid=310) Training Progress:  33%|███▎      | 1/3 [00:41<01:22, 41.2s/it]\r" +
	"(TaskRunner pid=310) Training Progress:  67%|██████▋   | 2/3 [01:22<00:41, 41.2s/it]step:2 - critic/score/mean:np.float64(0.25) - actor/entropy:np.float64(1.1)\n" +
	"Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    step:3\n" +
	"(TaskRunner pid=310) step:3 - critic/score/mean:np.float64(0.75) - actor/entr"

func TestInterleavedAndPartialLines(t *testing.T) {
	spec := mustSpec(t, "verl", nil, "", []string{"critic/*", "actor/*"})
	want := []Sample{
		s(1, "critic/score/mean", -0.5, "actor/entropy", 1.2),
		s(2, "critic/score/mean", 0.25, "actor/entropy", 1.1),
		s(3, "critic/score/mean", 0.75),
	}
	// Whole, and in every split into pieces of 1 to 13 bytes: the same.
	if diff := cmp.Diff(want, collect(t, spec, interleavedLog), sampleCmp...); diff != "" {
		t.Errorf("whole log (-want +got):\n%s", diff)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		var got []Sample
		p := NewParser(spec, func(x *Sample) {
			got = append(got, Sample{Step: x.Step, Values: append([]Value(nil), x.Values...)})
		})
		for rest := []byte(interleavedLog); len(rest) > 0; {
			n := min(1+rng.IntN(13), len(rest))
			p.Write(rest[:n])
			rest = rest[n:]
		}
		if len(got) != 2 {
			t.Fatalf("before Close: %d samples, want 2 (the last line is not finished)", len(got))
		}
		p.Close()
		if diff := cmp.Diff(want, got, sampleCmp...); diff != "" {
			t.Fatalf("log in pieces (-want +got):\n%s", diff)
		}
	}
}

func TestLongLinesAreSkippedInBoundedMemory(t *testing.T) {
	spec := mustSpec(t, "verl", nil, "", nil)
	var got []Sample
	p := NewParser(spec, func(x *Sample) { got = append(got, Sample{Step: x.Step, Values: append([]Value(nil), x.Values...)}) })
	p.Write([]byte("step:1 - a:1\nstep:2 - a:"))
	chunk := bytes.Repeat([]byte("9"), 64<<10)
	for range 3 * MaxLine / len(chunk) {
		p.Write(chunk)
		if cap(p.pending) > 2*MaxLine {
			t.Fatalf("pending line grew to %d bytes", cap(p.pending))
		}
	}
	p.Write([]byte("\nstep:3 - a:3\n"))
	p.Write(append(append([]byte("step:4 - a:"), bytes.Repeat([]byte("1"), MaxLine)...), "\nstep:5 - a:5\n"...))
	p.Close()
	if diff := cmp.Diff([]Sample{s(1, "a", 1), s(3, "a", 3), s(5, "a", 5)}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if p.Stats.LongLines != 2 || p.Stats.Lines != 5 {
		t.Errorf("stats %+v, want 5 lines of which 2 long", p.Stats)
	}
}

func TestJSONLines(t *testing.T) {
	spec := mustSpec(t, "jsonl", nil, "", nil)
	log := `{"step": 1, "loss": 0.5, "eval": {"acc": 0.9, "f1": {"macro": 0.7}}, "tag": "x}", "arr": [1, [2], {"a": "]"}], "ok": true, "none": null}
[rank0] {"step":2,"loss":0.25,"lr":1e-5,"grad":NaN,"max":Infinity,"min":-Infinity}
{"step": 3.0, "loss": 0.125, "name": "esc\"aped", "k\u00e9y": 1}
{"loss": 0.1}
{"step": 4, "loss": 0.1} trailing
{"step": -1, "loss": 0.1}
{"step": 2.5, "loss": 0.1}
{"step": 5, "loss": 0.1
not json at all
{"step": 6, "loss": tru}
{"step": 7, "a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": {"j": {"k": {"l": {"m": {"n": {"o": {"p": {"q": {"r": {"s": {"t": {"u": {"v": {"w": {"x": {"y": {"z": {"A": {"B": {"C": {"D": {"E": {"F": {"G": {"H": 1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}
`
	want := []Sample{
		s(1, "loss", 0.5, "eval/acc", 0.9, "eval/f1/macro", 0.7, "ok", 1),
		s(2, "loss", 0.25, "lr", 1e-5, "grad", nan, "max", posInf, "min", negInf),
		s(3, "loss", 0.125, "kéy", 1),
	}
	if diff := cmp.Diff(want, collect(t, spec, log), sampleCmp...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	named := mustSpec(t, "jsonl", nil, "iteration", nil)
	if diff := cmp.Diff([]Sample{s(7, "loss", 1)}, collect(t, named, `{"iteration": 7, "loss": 1}`+"\n")); diff != "" {
		t.Errorf("step = \"iteration\" (-want +got):\n%s", diff)
	}
}

func TestPatterns(t *testing.T) {
	spec := mustSpec(t, "", []string{
		`iter (?P<step>\d+)/\d+ \| loss (?P<loss>\S+) \| lr (?P<lr>\S+)`,
		`eval accuracy: (?P<eval_acc>[0-9.]+)`,
	}, "", nil)
	log := "iter 10/100 | loss 2.5 | lr 1e-4\n" +
		"eval accuracy: 0.5\n" +
		"iter 20/100 | loss nan | lr 1e-4\n" +
		"iter x/100 | loss 1 | lr 1\n" +
		"eval accuracy: 0.75\n"
	want := []Sample{
		s(10, "loss", 2.5, "lr", 1e-4),
		s(1, "eval_acc", 0.5),
		s(20, "loss", nan, "lr", 1e-4),
		s(2, "eval_acc", 0.75),
	}
	if diff := cmp.Diff(want, collect(t, spec, log), sampleCmp...); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		format   string
		patterns []string
		step     string
		keys     []string
		want     string
	}{
		{"wandb", nil, "", nil, `format: unknown format "wandb"; kiln reads "verl" and "jsonl", or write patterns with named groups`},
		{"", nil, "", nil, `format: a metrics block needs a format ("verl" or "jsonl") or patterns`},
		{"verl", nil, "iteration", nil, `step: step names the step's key in format "jsonl"; in a pattern, name the group step: (?P<step>\d+)`},
		{"", []string{`loss (\S+)`}, "", nil, `patterns[0]: "loss (\\S+)" names no value: name each value's group, as in loss=(?P<loss>\S+)`},
		{"verl", []string{`(?P<a>x)`, `(?P<b`}, "", nil, "patterns[1]: error parsing regexp: invalid named capture: `(?P<b`"},
		{"verl", nil, "", []string{"a", ""}, "keys[1]: an empty glob matches no key"},
	} {
		_, err := NewSpec(tc.format, tc.patterns, tc.step, tc.keys)
		if err == nil || err.Error() != tc.want {
			t.Errorf("NewSpec(%q, %q, %q, %q) = %v, want %s", tc.format, tc.patterns, tc.step, tc.keys, err, tc.want)
		}
	}
}

func TestKeysFilter(t *testing.T) {
	spec := mustSpec(t, "verl", nil, "", []string{"critic/*/mean", "actor/entropy", "perf/?hroughput"})
	got := collect(t, spec, "step:1 - critic/score/mean:1 - critic/score/max:2 - critic/rewards/mean:3 - actor/entropy:4 - actor/entropy_x:5 - perf/throughput:6\n")
	if diff := cmp.Diff([]Sample{s(1, "critic/score/mean", 1, "critic/rewards/mean", 3, "actor/entropy", 4, "perf/throughput", 6)}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// verlLog generates a log of about size bytes: chatter of every kind, and
// every tenth line a metric line of 40 values, as a long verl run prints.
// It is produced as it is read, with few allocations, so its size costs no
// memory.
type verlLog struct {
	size, done int
	line       int
	buf        []byte
	steps      int
}

var chatter = [][]byte{
	[]byte("(TaskRunner pid=310) Training Progress:  33%|███▎      | 1/3 [00:41<01:22, 41.2s/it]\r"),
	[]byte(`{"event": "checkpoint", "path": "/ckpt/global_step_10"}` + "\n"),
	[]byte("(WorkerDict pid=311) INFO 2025-11-14 10:00:00 vllm: processed 4096 prompts at 1234.5 tokens/s\n"),
	[]byte("(WorkerDict pid=312) [W compile.py] torch.compile is not supported on NPU, falling back to eager\n"),
}

func (g *verlLog) Read(p []byte) (int, error) {
	if g.done >= g.size && len(g.buf) == 0 {
		return 0, io.EOF
	}
	for len(g.buf) < len(p) && g.done < g.size {
		before := len(g.buf)
		if g.line++; g.line%10 == 0 {
			g.steps++
			g.buf = append(g.buf, "(TaskRunner pid=310) step:"...)
			g.buf = strconv.AppendInt(g.buf, int64(g.steps), 10)
			for k := range 40 {
				g.buf = append(g.buf, " - group"...)
				g.buf = strconv.AppendInt(g.buf, int64(k%6), 10)
				g.buf = append(g.buf, "/metric_"...)
				g.buf = strconv.AppendInt(g.buf, int64(k), 10)
				g.buf = append(g.buf, "/mean:np.float64("...)
				g.buf = strconv.AppendFloat(g.buf, float64(g.steps)/float64(k+1), 'g', -1, 64)
				g.buf = append(g.buf, ')')
			}
			g.buf = append(g.buf, '\n')
		} else {
			g.buf = append(g.buf, chatter[g.line%len(chatter)]...)
		}
		g.done += len(g.buf) - before
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}

// TestHugeLogBoundedMemory parses a generated 64 MB log: every step is
// found, and what the parser allocates does not grow with the log.
func TestHugeLogBoundedMemory(t *testing.T) {
	spec := mustSpec(t, "verl", nil, "", nil)
	gen := &verlLog{size: 64 << 20}
	steps, values := 0, 0
	last := int64(0)
	p := NewParser(spec, func(x *Sample) {
		steps++
		values += len(x.Values)
		if x.Step != last+1 {
			t.Fatalf("step %d after %d", x.Step, last)
		}
		last = x.Step
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := p.Scan(gen); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	runtime.GC()
	var live runtime.MemStats
	runtime.ReadMemStats(&live)
	if steps != gen.steps || values != 40*gen.steps {
		t.Errorf("parsed %d steps with %d values, the log has %d steps of 40 values", steps, values, gen.steps)
	}
	if p.Stats.Bytes < 64<<20 {
		t.Errorf("parsed %d bytes, want the whole 64 MiB", p.Stats.Bytes)
	}
	// The read buffer, the key table and the generator's buffer: a few MiB
	// in all, whatever the size of the log.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("parsing 64 MiB allocated %d MiB in total", alloc>>20)
	}
	if grew := int64(live.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("the heap grew by %d MiB", grew>>20)
	}
	if p.Stats.LongLines != 0 {
		t.Errorf("%d long lines", p.Stats.LongLines)
	}
}

// FuzzParser feeds any bytes to the parsers of every format: nothing
// panics, every sample has a value, and a log written in two pieces gives
// the samples of the whole.
func FuzzParser(f *testing.F) {
	for _, seed := range []string{
		interleavedLog,
		"step:1 - a:np.float64(nan) - b:Fraction(1, 0)\n",
		`{"step": 1, "a": {"b": [1, {"c": "\"]"}]}, "d": 1e400}` + "\n",
		"iter 3 loss=0.5\r\n",
	} {
		f.Add(seed, 7)
	}
	specs := []*Spec{}
	for _, format := range []string{"verl", "jsonl"} {
		s, _ := NewSpec(format, nil, "", nil)
		specs = append(specs, s)
	}
	p, _ := NewSpec("", []string{`iter (?P<step>\d+) loss=(?P<loss>\S+)`}, "", nil)
	specs = append(specs, p)
	f.Fuzz(func(t *testing.T, log string, cut int) {
		for _, spec := range specs {
			whole := collect(t, spec, log)
			for _, s := range whole {
				if len(s.Values) == 0 {
					t.Fatalf("an empty sample from %q", log)
				}
			}
			if cut < 0 || cut > len(log) {
				continue
			}
			var pieces []Sample
			pp := NewParser(spec, func(s *Sample) {
				pieces = append(pieces, Sample{Step: s.Step, Values: append([]Value(nil), s.Values...)})
			})
			pp.Write([]byte(log[:cut]))
			pp.Write([]byte(log[cut:]))
			pp.Close()
			if diff := cmp.Diff(whole, pieces, sampleCmp...); diff != "" {
				t.Fatalf("%q cut at %d (-whole +pieces):\n%s", log, cut, diff)
			}
		}
	})
}
