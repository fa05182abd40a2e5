package render

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
)

// Meter reads a step counter from a node's log lines: the first group of
// Pattern is the step, Total the last step (0: unknown).
type Meter struct {
	Pattern *regexp.Regexp
	Total   int64
}

// Progress renders an apply as it happens. On a terminal it keeps a live
// status block (running nodes, elapsed time, last log line or step
// counter) under the scrolling output; elsewhere it writes plain
// timestamped lines. It implements run.Hooks.
type Progress struct {
	W      io.Writer
	TTY    bool
	Colors Colors
	Meters map[addr.Node]Meter
	// Quiet drops the nodes' own output lines (they stay in the logs).
	Quiet bool
	Now   func() time.Time

	mu      sync.Mutex
	running map[addr.Node]*running
	drawn   int
	stop    chan struct{}
	done    chan struct{}
}

type running struct {
	since  time.Time
	last   string
	status string // a Slurm job's state
	step   int64
	// A download's bytes so far, its size (-1 unknown) and when the first
	// byte arrived, for the rate.
	done, total int64
	first       time.Time
}

// Start begins the live status (terminal only).
func (p *Progress) Start() {
	p.running = map[addr.Node]*running{}
	if p.Now == nil {
		p.Now = time.Now
	}
	if !p.TTY {
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.redraw()
				p.mu.Unlock()
			}
		}
	}()
}

// Stop ends the live status and clears it.
func (p *Progress) Stop() {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}

func (p *Progress) Running(a addr.Node, action plan.Action, reasons []plan.Reason) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[a] = &running{since: p.Now()}
	why := ""
	if len(reasons) > 0 {
		why = ": " + reasons[0].String()
	}
	p.line(fmt.Sprintf("%s %s%s", a, c(p.Colors, action, action.Word()), why))
}

func c(cs Colors, a plan.Action, s string) string { return cs.action(string(a))("%s", s) }

func (p *Progress) Output(a addr.Node, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.running[a]
	if r != nil {
		r.last = text
		if m, ok := p.Meters[a]; ok && m.Pattern != nil {
			if sm := m.Pattern.FindStringSubmatch(text); len(sm) > 1 {
				if n, err := strconv.ParseInt(sm[1], 10, 64); err == nil {
					r.step = n
				}
			}
		}
	}
	if !p.Quiet {
		p.line(fmt.Sprintf("%s | %s", a, text))
	}
}

// Note prints a remark about a node, or about the whole apply when a is
// zero (run.Notes).
func (p *Progress) Note(a addr.Node, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a == (addr.Node{}) {
		p.line("kiln: " + msg)
		return
	}
	p.line(fmt.Sprintf("%s: %s", a, msg))
}

// Status shows a running node's state, such as its Slurm job's, in the
// live status and as a line when it changes (run.Statuses).
func (p *Progress) Status(a addr.Node, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.running[a]; r != nil {
		r.status = status
	}
	p.line(fmt.Sprintf("%s: %s", a, status))
}

// Bytes records a download's progress for the live status; kinds that
// download call it (addr is the node's address as text).
func (p *Progress) Bytes(addr string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, r := range p.running {
		if a.String() == addr {
			if r.first.IsZero() {
				r.first = p.Now()
			}
			r.done, r.total = done, total
		}
	}
}

func (p *Progress) Finished(r run.NodeResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, r.Addr)
	switch r.Outcome {
	case run.UpToDate:
		return
	case run.Failed:
		p.line(fmt.Sprintf("%s %s after %s: %v", r.Addr, c(p.Colors, plan.Repair, "failed"), round(r.Duration), r.Err))
		if len(r.LogTail) > 0 {
			p.line(fmt.Sprintf("    last lines of %s:", r.Log))
			for _, l := range r.LogTail {
				p.line("    " + l)
			}
		}
	case run.Skipped:
		p.line(fmt.Sprintf("%s skipped: %v", r.Addr, r.Err))
	case run.Cancelled:
		if r.Log != "" {
			p.line(fmt.Sprintf("%s interrupted after %s", r.Addr, round(r.Duration)))
		}
	case run.Restored:
		p.line(fmt.Sprintf("%s %s from the store", r.Addr, c(p.Colors, plan.Restore, "restored")))
	case run.Fetched:
		p.line(fmt.Sprintf("%s %s from the remote cache in %s", r.Addr, c(p.Colors, plan.Fetch, "fetched"), round(r.Duration)))
	default:
		p.line(fmt.Sprintf("%s %s in %s", r.Addr, c(p.Colors, plan.Create, string(r.Outcome)), round(r.Duration)))
	}
	if r.LogErr != nil {
		p.line(fmt.Sprintf("%s: warning: %v", r.Addr, r.LogErr))
	}
}

// line prints one line above the status block.
func (p *Progress) line(s string) {
	if p.TTY {
		p.clear()
		fmt.Fprintln(p.W, s)
		p.redraw()
		return
	}
	fmt.Fprintf(p.W, "%s %s\n", p.Now().Format("15:04:05"), s)
}

func (p *Progress) clear() {
	if p.drawn > 0 {
		fmt.Fprintf(p.W, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
}

func (p *Progress) redraw() {
	if !p.TTY {
		return
	}
	p.clear()
	addrs := make([]addr.Node, 0, len(p.running))
	for a := range p.running {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Less(addrs[j]) })
	const maxShown = 8
	for i, a := range addrs {
		if i == maxShown {
			fmt.Fprintf(p.W, "  … and %d more running\n", len(addrs)-maxShown)
			p.drawn++
			break
		}
		r := p.running[a]
		status := truncate(r.last, 60)
		if r.status != "" {
			status = r.status + "  " + truncate(r.last, 40)
		}
		if r.done > 0 {
			status = byteStatus(r.done, r.total, p.Now().Sub(r.first))
		}
		if m, ok := p.Meters[a]; ok && r.step > 0 {
			status = fmt.Sprintf("step %d", r.step)
			if m.Total > 0 {
				status += fmt.Sprintf("/%d (%d%%)", m.Total, r.step*100/m.Total)
			}
		}
		fmt.Fprintf(p.W, "  %s %s %s\n", p.Colors.dim("⋯"), a, p.Colors.dim(round(p.Now().Sub(r.since))+"  "+status))
		p.drawn++
	}
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func round(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// ApplySummary is the closing line of an apply.
func ApplySummary(r *run.Result, took time.Duration) string {
	var parts []string
	for _, o := range []run.Outcome{run.Built, run.Started, run.Fetched, run.Restored, run.UpToDate, run.Failed, run.Skipped, run.Cancelled} {
		if n := r.Count(o); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o))
		}
	}
	if n := len(r.Forgotten); n > 0 {
		parts = append(parts, fmt.Sprintf("%d forgotten", n))
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to do")
	}
	mismatches := 0
	for _, n := range r.Nodes {
		if n.LockMismatch != nil {
			mismatches++
		}
	}
	if mismatches > 0 {
		parts = append(parts, fmt.Sprintf("%d lock mismatch%s", mismatches, map[bool]string{true: "es"}[mismatches > 1]))
	}
	var b strings.Builder
	for _, a := range r.Forgotten {
		fmt.Fprintf(&b, "- %s forgotten: no longer in the configuration; its result stays in the store until kiln gc\n", a)
	}
	fmt.Fprintf(&b, "Apply: %s (%s).", strings.Join(parts, ", "), round(took))
	return b.String()
}

// byteStatus reads like "1.2 GiB of 15.0 GiB (8%), 48.0 MiB/s".
func byteStatus(done, total int64, took time.Duration) string {
	s := SizeText(done)
	if total > 0 {
		s += fmt.Sprintf(" of %s (%d%%)", SizeText(total), done*100/total)
	}
	if took > time.Second {
		s += ", " + SizeText(int64(float64(done)/took.Seconds())) + "/s"
	}
	return s
}

// SizeText writes a byte count the way people read it: 1.5 MiB.
func SizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
