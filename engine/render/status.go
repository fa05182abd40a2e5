package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/human"
)

// Direction says which way a transfer's bytes go.
type Direction int

const (
	Download Direction = iota
	Upload
)

// nodeStatus is what the live status knows of one running node.
type nodeStatus struct {
	addr    addr.Node
	since   time.Time
	devices string // the devices it holds: "npu 0-3"
	last    string // the last line it printed, made plain
	state   string // a Slurm job's state, or ""
	// step counter (progress = "..."): the last step, the total (0
	// unknown), and the first step seen with when, for the rate.
	step, total int64
	firstStep   int64
	firstStepAt time.Time
	lastStepAt  time.Time
	previous    time.Duration // the last recorded run's duration, 0 unknown
	xfer        *transfer
	shown       time.Time // the last line about it without a terminal
}

// transfer is a download's or upload's bytes so far.
type transfer struct {
	dir         Direction
	done, total int64 // total -1: unknown
	first       time.Time
	firstDone   int64
}

// elapsed is how long the node has run.
func (n *nodeStatus) elapsed(now time.Time) time.Duration { return now.Sub(n.since) }

// eta says how long the node still needs, from the best source at hand: a
// transfer's rate, the step counter's rate, or the last run's duration.
// ok is false when nothing says.
func (n *nodeStatus) eta(now time.Time) (time.Duration, bool) {
	if x := n.xfer; x != nil && x.total > 0 {
		took := now.Sub(x.first)
		moved := x.done - x.firstDone
		if took > time.Second && moved > 0 {
			rate := float64(moved) / took.Seconds()
			return time.Duration(float64(x.total-x.done) / rate * float64(time.Second)), true
		}
	}
	if n.total > 0 && n.step > n.firstStep && n.lastStepAt.After(n.firstStepAt) {
		// The rate between the first and the latest step seen, less the
		// time since the latest one.
		per := n.lastStepAt.Sub(n.firstStepAt) / time.Duration(n.step-n.firstStep)
		if left := per*time.Duration(max(n.total-n.step, 0)) - now.Sub(n.lastStepAt); left > 0 {
			return left, true
		}
	}
	if n.total > 0 && n.step > 0 && n.step == n.firstStep {
		per := n.firstStepAt.Sub(n.since) / time.Duration(n.step)
		if left := per*time.Duration(max(n.total-n.step, 0)) - now.Sub(n.firstStepAt); left > 0 {
			return left, true
		}
	}
	if n.previous > 0 {
		if left := n.previous - n.elapsed(now); left > 0 {
			return left, true
		}
	}
	return 0, false
}

// progressText is the node's progress in words: a step counter, a
// transfer's bytes and rate, or "".
func (n *nodeStatus) progressText(now time.Time) string {
	if x := n.xfer; x != nil {
		return transferText(x, now)
	}
	if n.step > 0 {
		if n.total > 0 {
			return fmt.Sprintf("step %d/%d %d%%", n.step, n.total, n.step*100/n.total)
		}
		return fmt.Sprintf("step %d", n.step)
	}
	return ""
}

// transferText reads like "1.2 GiB of 15.0 GiB 8%, 48.0 MiB/s": downloads
// and uploads the same way.
func transferText(x *transfer, now time.Time) string {
	s := human.Bytes(x.done)
	if x.dir == Upload {
		s = "up " + s
	}
	if x.total > 0 {
		s += fmt.Sprintf(" of %s %d%%", human.Bytes(x.total), x.done*100/x.total)
	}
	if took := now.Sub(x.first); took > time.Second && x.done > x.firstDone {
		s += ", " + human.Bytes(int64(float64(x.done-x.firstDone)/took.Seconds())) + "/s"
	}
	return s
}

// statusLine is one running node's line of the live status, fitted to cols
// columns: "⋯ ADDR  ELAPSED  PROGRESS  ETA  last line".
func statusLine(n *nodeStatus, now time.Time, cols int, c Colors) (string, int) {
	parts := []string{n.addr.String(), clock(n.elapsed(now))}
	if n.devices != "" {
		parts = append(parts, n.devices)
	}
	if n.state != "" {
		parts = append(parts, n.state)
	}
	if p := n.progressText(now); p != "" {
		parts = append(parts, p)
	}
	if eta, ok := n.eta(now); ok {
		parts = append(parts, "ETA "+clock(eta))
	} else if n.previous > 0 {
		parts = append(parts, "last run "+clock(n.previous))
	}
	if n.last != "" && n.xfer == nil {
		parts = append(parts, n.last)
	}
	plain := fit("  ⋯ "+strings.Join(parts, "  "), cols)
	w := textWidth(plain)
	if !c.On {
		return plain, w
	}
	// Dim all but the address.
	head := "  ⋯ " + n.addr.String()
	if strings.HasPrefix(plain, head) {
		return "  " + c.dim("⋯") + " " + n.addr.String() + c.dim(plain[len(head):]), w
	}
	return c.dim(plain), w
}

// headerLine is the first line of the live status: "3/12 nodes done, 2
// running, 1 failed  0:42".
func headerLine(done, total, running, uploading, failed int, took time.Duration, cols int, c Colors) (string, int) {
	s := fmt.Sprintf("%d/%d nodes done, %d running", done, max(total, done+running), running)
	if uploading > 0 {
		s += fmt.Sprintf(", %d uploading", uploading)
	}
	if failed > 0 {
		s += fmt.Sprintf(", %d failed", failed)
	}
	s = fit(s+"  "+clock(took), cols)
	return c.bold(s), textWidth(s)
}

// heartbeatText says what a silent node is doing, without a terminal:
// "exec.train still running (2m30s, last step 180/372, ETA 4m0s)".
func heartbeatText(n *nodeStatus, now time.Time) string {
	facts := []string{round(n.elapsed(now).Round(time.Second))}
	if n.devices != "" {
		facts = append(facts, "on "+n.devices)
	}
	switch {
	case n.xfer != nil:
		facts = append(facts, transferText(n.xfer, now))
	case n.step > 0 && n.total > 0:
		facts = append(facts, fmt.Sprintf("last step %d/%d", n.step, n.total))
	case n.step > 0:
		facts = append(facts, fmt.Sprintf("last step %d", n.step))
	case n.last != "":
		facts = append(facts, "last line: "+fit(n.last, 80))
	default:
		facts = append(facts, "no output yet")
	}
	if eta, ok := n.eta(now); ok {
		facts = append(facts, "ETA "+round(eta.Round(time.Second)))
	}
	return fmt.Sprintf("%s still running (%s)", n.addr, strings.Join(facts, ", "))
}

// upload is a result being pushed to a remote cache after its node
// finished.
type upload struct {
	address string
	since   time.Time
	shown   time.Time // the last line about it without a terminal
	xfer    *transfer
}

// line is the upload's line of the live status: "↑ ADDR  ELAPSED  up 1.2
// GiB of 3.0 GiB 40%, 50.0 MiB/s  ETA 0:30".
func (u *upload) line(now time.Time, cols int, c Colors) (string, int) {
	n := nodeStatus{since: u.since, xfer: u.xfer}
	parts := []string{u.address, clock(now.Sub(u.since)), transferText(u.xfer, now)}
	if eta, ok := n.eta(now); ok {
		parts = append(parts, "ETA "+clock(eta))
	}
	s := fit("  ↑ "+strings.Join(parts, "  "), cols)
	return c.dim(s), textWidth(s)
}

// heartbeat says, without a terminal, how far the upload got.
func (u *upload) heartbeat(now time.Time) string {
	n := nodeStatus{since: u.since, xfer: u.xfer}
	facts := []string{round(now.Sub(u.since).Round(time.Second)), transferText(u.xfer, now)}
	if eta, ok := n.eta(now); ok {
		facts = append(facts, "ETA "+round(eta.Round(time.Second)))
	}
	return fmt.Sprintf("%s still uploading to the remote cache (%s)", u.address, strings.Join(facts, ", "))
}
