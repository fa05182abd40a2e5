package metrics

import (
	"bytes"
	"io"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// scanBench parses data b.N times and reports, besides the wall-clock rate,
// MB per CPU-second: on a shared machine the wall clock measures the
// neighbours too.
func scanBench(b *testing.B, spec *Spec, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime(b)
	for range b.N {
		samples := 0
		p := NewParser(spec, func(*Sample) { samples++ })
		if err := p.Scan(bytes.NewReader(data)); err != nil || samples == 0 {
			b.Fatal(err, samples)
		}
	}
	cpu := cpuTime(b) - start
	b.ReportMetric(float64(len(data))*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
}

// generated returns size bytes of gen's log, made once per benchmark.
func generated(b *testing.B, r io.Reader) []byte {
	b.Helper()
	data, err := io.ReadAll(r)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkScanVerlLog100MB parses a 100 MB verl log (a metric line of 40
// values every tenth line, chatter between): the bytes per second reported
// is the parse rate.
func BenchmarkScanVerlLog100MB(b *testing.B) {
	data := generated(b, &verlLog{size: 100 << 20})
	spec, _ := NewSpec("verl", nil, "", nil)
	scanBench(b, spec, data)
}

// BenchmarkScanJSONLog100MB parses a 100 MB log in which every line is a
// JSON object of 20 metrics.
func BenchmarkScanJSONLog100MB(b *testing.B) {
	var buf bytes.Buffer
	for step := 1; buf.Len() < 100<<20; step++ {
		buf.WriteString(`{"step": `)
		buf.WriteString(strconv.Itoa(step))
		for k := range 20 {
			buf.WriteString(`, "train/metric_`)
			buf.WriteString(strconv.Itoa(k))
			buf.WriteString(`": `)
			buf.WriteString(strconv.FormatFloat(float64(step)/float64(k+1), 'g', -1, 64))
		}
		buf.WriteString(`, "phase": "train"}` + "\n")
	}
	data := buf.Bytes()
	spec, _ := NewSpec("jsonl", nil, "", nil)
	scanBench(b, spec, data)
}
