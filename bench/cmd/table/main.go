// Command table prints the results of bench/run.sh as Markdown: it reads
// the samples file (one line per run: measure, tool, run, wall seconds,
// peak RSS in KiB, CPU seconds) and writes, per section, the median of
// every measure for every tool, kiln's ratio to its peers and the target
// each row is held to, with "met" or "MISSED". Rows whose samples are
// missing (a section skipped) are left out.
//
//	go run ./bench/cmd/table -mid 5000 -n 10000 -big 100000 bench/out/n10000/samples.tsv
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// sample is one measurement.
type sample struct{ wall, rssMB, cpu float64 }

// row is one line of a table: a measure as each tool ran it.
type row struct {
	label   string
	measure string // the samples' measure column
	value   func(sample) float64
	format  string
	// target, when set, says what kiln is held to and whether it met it,
	// from kiln's median and the peers' medians by tool.
	target func(kiln float64, peer map[string]float64) (string, bool)
}

type section struct {
	title string
	tools []string // kiln first
	base  string   // the peer ratios are taken against
	rows  []row
}

func wall(s sample) float64 { return s.wall }
func rss(s sample) float64  { return s.rssMB }
func cpu(s sample) float64  { return s.cpu }

func ratioTarget(peer string, limit float64) func(float64, map[string]float64) (string, bool) {
	return func(k float64, p map[string]float64) (string, bool) {
		b, ok := p[peer]
		return fmt.Sprintf("<= %.1fx %s", limit, peer), ok && k <= limit*b
	}
}

// fasterTarget holds kiln to limit times the faster of make and ninja.
func fasterTarget(limit float64) func(float64, map[string]float64) (string, bool) {
	return func(k float64, p map[string]float64) (string, bool) {
		text := fmt.Sprintf("<= %.2fx the faster of make and ninja", limit)
		m, okm := p["make"]
		n, okn := p["ninja"]
		if !okm || !okn {
			return text, false
		}
		return text, k <= limit*min(m, n)
	}
}

func below(limit float64, unit string) func(float64, map[string]float64) (string, bool) {
	return func(k float64, _ map[string]float64) (string, bool) {
		return fmt.Sprintf("<= %g %s", limit, unit), k <= limit
	}
}

var sections = []section{
	{title: "%s nodes, full builds", tools: []string{"kiln", "make", "ninja"}, base: "ninja", rows: []row{
		{"full build from clean (s)", "full-mid", wall, "%.3f", fasterTarget(1.05)},
		{"CPU time, full build (s)", "full-mid", cpu, "%.2f", nil},
		{"peak RSS, full build (MB)", "full-mid", rss, "%.0f", below(100, "MB")},
	}},
	{title: "%s nodes", tools: []string{"kiln", "make", "ninja", "snakemake"}, base: "ninja", rows: []row{
		{"full build from clean (s)", "full", wall, "%.3f", fasterTarget(1.05)},
		{"first plan, nothing built (s)", "fresh-plan", wall, "%.3f", nil},
		{"no-op plan (s)", "noop-plan", wall, "%.3f", ratioTarget("ninja", 1)},
		{"first no-op plan after the apply (s, once)", "noop-settle", wall, "%.3f", nil},
		{"no-op apply (s)", "noop-apply", wall, "%.3f", nil},
		{"plan after 1 input edit (s)", "edit-plan", wall, "%.3f", ratioTarget("ninja", 3)},
		{"same, full path: KILN_NO_QUICK=1 (s)", "edit-plan-full", wall, "%.3f", nil},
		{"plan after 1 command edit (s)", "command-plan", wall, "%.3f", nil},
		{"CPU time, full build (s)", "full", cpu, "%.2f", nil},
		{"peak RSS, full build (MB)", "full", rss, "%.0f", below(100, "MB")},
		{"peak RSS, first plan (MB)", "fresh-plan", rss, "%.0f", nil},
		{"peak RSS, no-op plan (MB)", "noop-plan", rss, "%.0f", nil},
		{"peak RSS, plan after edit (MB)", "edit-plan", rss, "%.0f", nil},
	}},
	{title: "%s nodes", tools: []string{"kiln", "make", "ninja"}, base: "ninja", rows: []row{
		{"first plan, nothing built (s)", "fresh-plan-big", wall, "%.3f", below(2, "s")},
		{"full build from clean, one run (s)", "full-big", wall, "%.1f", nil},
		{"no-op plan (s)", "noop-plan-big", wall, "%.3f", below(0.5, "s")},
		{"first no-op plan after the apply (s, once)", "noop-settle-big", wall, "%.3f", nil},
		{"plan after 1 input edit (s)", "edit-plan-big", wall, "%.3f", nil},
		{"CPU time, first plan (s)", "fresh-plan-big", cpu, "%.2f", nil},
		{"peak RSS, first plan (MB)", "fresh-plan-big", rss, "%.0f", below(500, "MB")},
		{"peak RSS, full build (MB)", "full-big", rss, "%.0f", nil},
		{"peak RSS, no-op plan (MB)", "noop-plan-big", rss, "%.0f", nil},
	}},
}

func main() {
	mid := flag.Int("mid", 5000, "nodes of the DAG of full builds only")
	n := flag.Int("n", 10000, "nodes of the first DAG")
	big := flag.Int("big", 100000, "nodes of the second DAG")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: table [-mid N] [-n N] [-big N] SAMPLES.tsv")
		os.Exit(2)
	}
	samples, err := read(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "table:", err)
		os.Exit(1)
	}
	for i, s := range sections {
		s.title = fmt.Sprintf(s.title, thousands([]int{*mid, *n, *big}[i]))
		print(s, samples)
	}
	printBig(samples)
}

// thousands writes n with commas: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// read returns the samples by measure and tool.
func read(path string) (map[string]map[string][]sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string][]sample{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		col := strings.Split(sc.Text(), "\t")
		if len(col) < 4 || col[0] == "measure" {
			continue
		}
		var s sample
		s.wall, _ = strconv.ParseFloat(col[3], 64)
		if len(col) > 4 {
			kb, _ := strconv.ParseFloat(col[4], 64)
			s.rssMB = kb / 1024
		}
		if len(col) > 5 {
			s.cpu, _ = strconv.ParseFloat(col[5], 64)
		}
		if out[col[0]] == nil {
			out[col[0]] = map[string][]sample{}
		}
		out[col[0]][col[1]] = append(out[col[0]][col[1]], s)
	}
	return out, sc.Err()
}

func median(ss []sample, v func(sample) float64) (float64, bool) {
	if len(ss) == 0 {
		return 0, false
	}
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = v(s)
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2], true
	}
	return (xs[n/2-1] + xs[n/2]) / 2, true
}

func print(s section, samples map[string]map[string][]sample) {
	header := append([]string{"measure (median)"}, s.tools...)
	for _, t := range s.tools[1:] {
		header = append(header, "kiln/"+t)
	}
	header = append(header, "target")
	var lines [][]string
	for _, r := range s.rows {
		kiln, ok := median(samples[r.measure]["kiln"], r.value)
		if !ok {
			continue
		}
		line := []string{r.label}
		peer := map[string]float64{}
		for _, t := range s.tools {
			v, ok := median(samples[r.measure][t], r.value)
			if !ok || v == 0 && r.format != "%.3f" {
				line = append(line, "-")
				continue
			}
			peer[t] = v
			line = append(line, fmt.Sprintf(r.format, v))
		}
		for _, t := range s.tools[1:] {
			if b, ok := peer[t]; ok && b > 0 {
				line = append(line, fmt.Sprintf("%.2fx", kiln/b))
			} else {
				line = append(line, "-")
			}
		}
		target := ""
		if r.target != nil {
			text, met := r.target(kiln, peer)
			target = text + ": " + map[bool]string{true: "met", false: "MISSED"}[met]
		}
		lines = append(lines, append(line, target))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Printf("\n%s\n\n", s.title)
	table(header, lines)
}

// printBig prints the rows of bench/cmd/bighash.
func printBig(samples map[string]map[string][]sample) {
	first, ok := median(samples["first-hash"]["kiln"], wall)
	if !ok {
		return
	}
	firstCPU, _ := median(samples["first-hash"]["kiln"], cpu)
	ssl, _ := median(samples["first-hash"]["openssl"], wall)
	ceiling, _ := median(samples["sha256-memory"]["go"], wall)
	verify, _ := median(samples["re-verify"]["kiln"], wall)
	size, _ := median(samples["big-bytes"]["bighash"], wall)
	gbs := func(s float64) string {
		if s <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", size/s/1e9)
	}
	fmt.Printf("\nBig files (%.2f GB in all)\n\n", size/1e9)
	lines := [][]string{
		{"first hash (GB/s)", gbs(first), gbs(ssl), gbs(ceiling), ">= 2.0 GB/s: " + map[bool]string{true: "met", false: "MISSED"}[size/first/1e9 >= 2.0]},
		{"first hash, per CPU-second (GB)", gbs(firstCPU), "-", "-", ""},
		{"re-verify (ms)", fmt.Sprintf("%.2f", verify*1000), "-", "-", "<= 10 ms: " + map[bool]string{true: "met", false: "MISSED"}[verify <= 0.010]},
	}
	table([]string{"measure (median)", "kiln", "openssl", "SHA-256 of memory", "target"}, lines)
}

func table(header []string, lines [][]string) {
	width := make([]int, len(header))
	for _, l := range append([][]string{header}, lines...) {
		for i, c := range l {
			width[i] = max(width[i], len(c))
		}
	}
	put := func(l []string) {
		for i, c := range l {
			if i == 0 || i == len(l)-1 {
				fmt.Printf("| %-*s ", width[i], c)
			} else {
				fmt.Printf("| %*s ", width[i], c)
			}
		}
		fmt.Println("|")
	}
	put(header)
	for i := range header {
		fmt.Printf("|%s", strings.Repeat("-", width[i]+2))
	}
	fmt.Println("|")
	for _, l := range lines {
		put(l)
	}
}
