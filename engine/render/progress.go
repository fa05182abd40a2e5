package render

import (
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/run"
)

// Meter reads a step counter from a node's log lines: the first group of
// Pattern is the step, Total the last step (0: unknown).
type Meter struct {
	Pattern *regexp.Regexp
	Total   int64
}

// Progress renders an apply as it happens; it implements run.Hooks.
//
// On a terminal it keeps a live status block under the scrolling output: a
// header ("3/12 nodes done, 2 running  0:42") and a line per running node
// with its elapsed time, its progress (step counter or transferred bytes),
// an ETA and its last log line. Every line is cut to the terminal's width
// as it is now, so nothing wraps and a redraw erases exactly what the last
// one drew; after a resize (Resized) the block is redrawn at once, counting
// the rows the terminal's reflow made of the old lines.
//
// Without a terminal it writes plain timestamped lines, and a node that has
// printed nothing for Heartbeat gets a line saying it is still running,
// with its progress.
//
// A failure is printed once: the node, its error (the exit status), its
// log's path, and the log's last lines unless they are the lines just
// streamed above.
type Progress struct {
	W      io.Writer
	TTY    bool
	Colors Colors
	Meters map[addr.Node]Meter
	// Quiet drops the nodes' own output lines (they stay in the logs).
	Quiet bool
	Now   func() time.Time
	// Width is the terminal's width in columns now; nil or 0 means 80.
	Width func() int
	// Resized receives a value when the terminal was resized (SIGWINCH).
	Resized <-chan os.Signal
	// Total is how many nodes the apply decides, for "N/M nodes done".
	Total int
	// Previous are the durations of the nodes' last recorded runs, for an
	// ETA when nothing better says.
	Previous map[addr.Node]time.Duration
	// Heartbeat is how long a node may stay silent, without a terminal,
	// before a "still running" line; 0 means 30s.
	Heartbeat time.Duration
	// Interval is how often the status is redrawn (or silence checked);
	// 0 means 250ms.
	Interval time.Duration

	mu      sync.Mutex
	running map[addr.Node]*nodeStatus
	// uploads are the results being pushed to a remote cache after their
	// node finished, by address.
	uploads map[string]*upload
	devices map[addr.Node]string // from Devices until the node's Running
	done    int
	failed  int
	started time.Time
	// What the last redraw drew: each line's width and the terminal's width
	// then.
	drawn     []int
	drawnCols int
	// The node whose output lines are the last ones printed, and how many
	// in a row: a failure's log tail already on screen is not repeated.
	lastOwner addr.Node
	lastRun   int
	stop      chan struct{}
	stopped   chan struct{}
}

// DefaultHeartbeat is how long a node may stay silent without a terminal
// before kiln says it is still running, as Terraform's "Still creating...".
const DefaultHeartbeat = 30 * time.Second

// maxShown is the most running nodes the status lists by name.
const maxShown = 8

// Start begins the live status, or the heartbeat without a terminal.
func (p *Progress) Start() {
	p.running = map[addr.Node]*nodeStatus{}
	p.uploads = map[string]*upload{}
	p.devices = map[addr.Node]string{}
	if p.Now == nil {
		p.Now = time.Now
	}
	if p.Heartbeat <= 0 {
		p.Heartbeat = DefaultHeartbeat
	}
	interval := p.Interval
	if interval <= 0 {
		interval = 250 * time.Millisecond
	}
	if !p.TTY {
		interval = min(interval, p.Heartbeat/4)
	}
	p.started = p.Now()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-p.Resized:
			case <-t.C:
			}
			p.mu.Lock()
			if p.TTY {
				p.redraw()
			} else {
				p.heartbeats()
			}
			p.mu.Unlock()
		}
	}()
}

// Stop ends the live status and clears it.
func (p *Progress) Stop() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}

var _ run.DeviceHooks = (*Progress)(nil)

// Devices notes the devices a node holds, shown with it while it runs.
func (p *Progress) Devices(a addr.Node, held map[string][]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.devices == nil {
		p.devices = map[addr.Node]string{}
	}
	p.devices[a] = pool.HeldText(held)
}

func (p *Progress) Running(a addr.Node, action plan.Action, reasons []plan.Reason) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.Now()
	n := &nodeStatus{addr: a, since: now, shown: now, previous: p.Previous[a], devices: p.devices[a]}
	delete(p.devices, a)
	if m, ok := p.Meters[a]; ok {
		n.total = m.Total
	}
	p.running[a] = n
	on := ""
	if n.devices != "" {
		on = " on " + n.devices
	}
	why := ""
	if len(reasons) > 0 {
		why = ": " + reasons[0].String()
	}
	p.line(nil, fmt.Sprintf("%s %s%s%s", a, c(p.Colors, action, action.Word()), on, why))
}

func c(cs Colors, a plan.Action, s string) string { return cs.action(string(a))("%s", s) }

func (p *Progress) Output(a addr.Node, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.running[a]; n != nil {
		if plain := plainText(text); plain != "" {
			n.last = plain
		}
		if m, ok := p.Meters[a]; ok && m.Pattern != nil {
			if sm := m.Pattern.FindStringSubmatch(text); len(sm) > 1 {
				if step, err := strconv.ParseInt(sm[1], 10, 64); err == nil {
					if n.firstStepAt.IsZero() {
						n.firstStep, n.firstStepAt = step, p.Now()
					}
					n.step, n.lastStepAt = step, p.Now()
				}
			}
		}
	}
	if !p.Quiet {
		p.line(&a, fmt.Sprintf("%s | %s", a, text))
	}
}

// Note prints a remark about a node, or about the whole apply when a is
// zero (run.Notes).
func (p *Progress) Note(a addr.Node, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a == (addr.Node{}) {
		p.line(nil, "kiln: "+msg)
		return
	}
	p.line(nil, fmt.Sprintf("%s: %s", a, msg))
}

// Status shows a running node's state, such as its Slurm job's, in the
// live status and as a line when it changes (run.Statuses).
func (p *Progress) Status(a addr.Node, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.running[a]; n != nil {
		n.state = status
	}
	p.line(nil, fmt.Sprintf("%s: %s", a, status))
}

// Bytes is Downloaded, for the engine's own transfers (run.ByteCounter: a
// result pulled from the remote cache).
func (p *Progress) Bytes(address string, done, total int64) {
	p.Transfer(address, Download, done, total)
}

// Transfer records the bytes a running node has moved (a download, or an
// upload to a remote cache) and their total (-1 unknown), for the status:
// bytes, rate and ETA, the same for both directions. addr is the node's
// address as text, as kinds know it.
func (p *Progress) Transfer(address string, dir Direction, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, n := range p.running {
		if a.String() != address {
			continue
		}
		if n.xfer == nil || n.xfer.dir != dir {
			n.xfer = &transfer{dir: dir, first: p.Now(), firstDone: done}
		}
		n.xfer.done, n.xfer.total = done, total
	}
}

// Downloaded is Transfer of a download, in the shape of a kind's progress
// callback.
func (p *Progress) Downloaded(address string, done, total int64) {
	p.Transfer(address, Download, done, total)
}

// Upload shows a result being pushed to a remote cache after its node
// finished (run.Uploads): bytes, rate and ETA, drawn as a running node's
// transfer is.
func (p *Progress) Upload(address string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.uploads[address]
	if u == nil {
		now := p.Now()
		u = &upload{address: address, since: now, shown: now, xfer: &transfer{dir: Upload, first: now, firstDone: done}}
		p.uploads[address] = u
	}
	u.xfer.done, u.xfer.total = done, total
}

// UploadDone ends the display of a push (run.Uploads).
func (p *Progress) UploadDone(address string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.uploads, address)
	if p.TTY {
		p.redraw()
	}
}

func (p *Progress) Finished(r run.NodeResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, r.Addr)
	p.done++
	switch r.Outcome {
	case run.UpToDate:
		return
	case run.Failed:
		p.failed++
		p.failure(r)
	case run.Skipped:
		p.line(nil, fmt.Sprintf("%s skipped: %v", r.Addr, r.Err))
	case run.Cancelled:
		if r.Log != "" {
			p.line(nil, fmt.Sprintf("%s interrupted after %s", r.Addr, round(r.Duration)))
		}
	case run.Restored:
		p.line(nil, fmt.Sprintf("%s %s from the store", r.Addr, c(p.Colors, plan.Restore, "restored")))
	case run.Fetched:
		p.line(nil, fmt.Sprintf("%s %s from the remote cache in %s%s", r.Addr, c(p.Colors, plan.Fetch, "fetched"), round(r.Duration), signedBy(r.Reasons)))
	default:
		took := round(r.Duration)
		if r.Earlier > 0 {
			// A resumed result took the time of all its segments.
			took = fmt.Sprintf("%s (resumed: %d segments, %s this time)", round(r.Earlier+r.Duration), len(r.Segments), round(r.Duration))
		}
		p.line(nil, fmt.Sprintf("%s %s in %s", r.Addr, c(p.Colors, plan.Create, string(r.Outcome)), took))
	}
	if r.LogErr != nil {
		p.line(nil, fmt.Sprintf("%s: warning: %v", r.Addr, r.LogErr))
	}
}

// failure prints a failed node once: what failed and how, where its log
// is, and the log's last lines unless they are right above.
func (p *Progress) failure(r run.NodeResult) {
	onScreen := !p.Quiet && p.lastOwner == r.Addr && p.lastRun >= len(r.LogTail)
	p.line(nil, fmt.Sprintf("%s %s after %s: %v", r.Addr, p.Colors.red("failed"), round(r.Duration), r.Err))
	if r.Log == "" {
		return
	}
	p.line(nil, fmt.Sprintf("    log: %s (kiln logs %s)", r.Log, r.Addr))
	if onScreen || len(r.LogTail) == 0 {
		return
	}
	p.line(nil, "    last lines:")
	for _, l := range r.LogTail {
		p.line(nil, "    | "+l)
	}
}

// line prints one line above the status block; owner is the node whose
// output it is, if any.
func (p *Progress) line(owner *addr.Node, s string) {
	if owner != nil && *owner == p.lastOwner && p.lastRun > 0 {
		p.lastRun++
	} else if owner != nil {
		p.lastOwner, p.lastRun = *owner, 1
	} else {
		p.lastOwner, p.lastRun = addr.Node{}, 0
	}
	if owner != nil {
		if n := p.running[*owner]; n != nil {
			n.shown = p.Now()
		}
	}
	if p.TTY {
		p.clear()
		fmt.Fprintln(p.W, s)
		p.redraw()
		return
	}
	fmt.Fprintf(p.W, "%s %s\n", p.Now().Format("15:04:05"), s)
}

// heartbeats says, without a terminal, which nodes have been silent for a
// Heartbeat, and what they are doing; the same for pushes to a cache.
func (p *Progress) heartbeats() {
	now := p.Now()
	for _, a := range p.runningOrder() {
		n := p.running[a]
		if now.Sub(n.shown) >= p.Heartbeat {
			fmt.Fprintf(p.W, "%s %s\n", now.Format("15:04:05"), heartbeatText(n, now))
			n.shown = now
			p.lastOwner, p.lastRun = addr.Node{}, 0
		}
	}
	for _, address := range p.uploadOrder() {
		u := p.uploads[address]
		if now.Sub(u.shown) >= p.Heartbeat {
			fmt.Fprintf(p.W, "%s %s\n", now.Format("15:04:05"), u.heartbeat(now))
			u.shown = now
		}
	}
}

func (p *Progress) uploadOrder() []string {
	return slices.Sorted(maps.Keys(p.uploads))
}

func (p *Progress) runningOrder() []addr.Node {
	addrs := make([]addr.Node, 0, len(p.running))
	for a := range p.running {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Less(addrs[j]) })
	return addrs
}

func (p *Progress) cols() int {
	if p.Width != nil {
		if w := p.Width(); w > 0 {
			return w
		}
	}
	return 80
}

// clear erases the status block. A terminal made narrower since the block
// was drawn reflows lines wider than it into several rows.
func (p *Progress) clear() {
	if len(p.drawn) == 0 {
		return
	}
	cols := p.cols()
	rows := 0
	for _, w := range p.drawn {
		if cols < p.drawnCols && w > cols {
			rows += (w + cols - 1) / cols
		} else {
			rows++
		}
	}
	fmt.Fprintf(p.W, "\r\x1b[%dA\x1b[J", rows)
	p.drawn = p.drawn[:0]
}

// redraw draws the status block anew, each line cut to the terminal's
// width less one column, so no terminal wraps it.
func (p *Progress) redraw() {
	if !p.TTY || p.running == nil {
		return
	}
	p.clear()
	if len(p.running) == 0 && len(p.uploads) == 0 {
		return
	}
	now := p.Now()
	cols := p.cols() - 1
	put := func(s string, w int) {
		fmt.Fprintln(p.W, s)
		p.drawn = append(p.drawn, w)
	}
	put(headerLine(p.done, p.Total, len(p.running), len(p.uploads), p.failed, now.Sub(p.started), cols, p.Colors))
	addrs := p.runningOrder()
	for i, a := range addrs {
		if i == maxShown {
			s := fit(fmt.Sprintf("  … and %d more running", len(addrs)-maxShown), cols)
			put(s, textWidth(s))
			break
		}
		put(statusLine(p.running[a], now, cols, p.Colors))
	}
	for i, address := range p.uploadOrder() {
		if i == maxShown {
			s := fit(fmt.Sprintf("  … and %d more uploading", len(p.uploads)-maxShown), cols)
			put(s, textWidth(s))
			break
		}
		put(p.uploads[address].line(now, cols, p.Colors))
	}
	p.drawnCols = cols + 1
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

// signedBy says which trusted key signed a pulled result, from its
// reasons; "" when none did.
func signedBy(reasons []plan.Reason) string {
	for _, r := range reasons {
		if r.Kind == plan.ReasonSigned {
			return ", signed by " + r.Subject
		}
	}
	return ""
}
