// Command metricscan measures kiln's metric parser (engine/metrics) on a
// log file. With -gen it writes a verl-shaped log of -size MiB to the file
// and exits; otherwise it parses the file -count times, printing one line
// per run: seconds, MB/s, samples, values. bench/metrics.sh drives it and
// times grep and a Python parser on the same file.
//
// The log is what a long verl run prints: every tenth line a metric line of
// 40 values ("(TaskRunner pid=310) step:N - group/metric_k/mean:np.float64(x)
// - ..."), between them rollout chatter, Ray warnings, tqdm bars redrawn
// with carriage returns and JSON events that are not metrics.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/kilnbuild/kiln/engine/metrics"
)

func main() {
	gen := flag.Bool("gen", false, "write the log instead of parsing it")
	size := flag.Int("size", 100, "size of the log to write, in MiB")
	count := flag.Int("count", 1, "parses of the file")
	flag.Parse()
	if flag.NArg() != 1 {
		fail(fmt.Errorf("usage: metricscan [-gen -size MiB] [-count N] FILE"))
	}
	path := flag.Arg(0)
	if *gen {
		if err := write(path, int64(*size)<<20); err != nil {
			fail(err)
		}
		return
	}
	spec, err := metrics.NewSpec("verl", nil, "", nil)
	if err != nil {
		fail(err)
	}
	for range *count {
		f, err := os.Open(path)
		if err != nil {
			fail(err)
		}
		samples, values := 0, 0
		p := metrics.NewParser(spec, func(s *metrics.Sample) { samples++; values += len(s.Values) })
		start := time.Now()
		err = p.Scan(f)
		took := time.Since(start)
		f.Close()
		if err != nil {
			fail(err)
		}
		fmt.Printf("%.3f\t%.0f\t%d\t%d\n", took.Seconds(), float64(p.Stats.Bytes)/1e6/took.Seconds(), samples, values)
	}
}

var chatter = []string{
	"(TaskRunner pid=310) Training Progress:  33%|███▎      | 1/3 [00:41<01:22, 41.2s/it]\r",
	`{"event": "checkpoint", "path": "/ckpt/global_step_10"}` + "\n",
	"(WorkerDict pid=311) INFO 2025-11-14 10:00:00 vllm: processed 4096 prompts at 1234.5 tokens/s\n",
	"(WorkerDict pid=312) [W compile.py] torch.compile is not supported on NPU, falling back to eager\n",
}

// write writes a log of about size bytes.
func write(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var done int64
	var line []byte
	for i, step := 1, 0; done < size; i++ {
		line = line[:0]
		if i%10 == 0 {
			step++
			line = append(line, "(TaskRunner pid=310) step:"...)
			line = strconv.AppendInt(line, int64(step), 10)
			for k := range 40 {
				line = fmt.Appendf(line, " - group%d/metric_%d/mean:np.float64(", k%6, k)
				line = strconv.AppendFloat(line, float64(step)/float64(k+1), 'g', -1, 64)
				line = append(line, ')')
			}
			line = append(line, '\n')
		} else {
			line = append(line, chatter[i%len(chatter)]...)
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		done += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "metricscan:", err)
	os.Exit(1)
}
