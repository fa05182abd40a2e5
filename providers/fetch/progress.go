package fetch

import (
	"fmt"
	"io"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
)

// meter reports the progress of one file's download: to the callback (the
// apply's live status, which draws bytes, rate and ETA for every kind that
// transfers) at most every interval, and one line to the node's log when
// the transfer ends.
type meter struct {
	log      io.Writer
	label    string
	addr     string
	callback func(addr string, done, total int64)
	interval time.Duration

	start     time.Time
	last      time.Time
	resumedAt int64 // bytes present before this transfer; not part of the rate
	done      int64
	total     int64 // -1 when unknown
}

func newMeter(f *Fetch, log io.Writer, addr, label string) *meter {
	return &meter{
		log:      log,
		label:    label,
		addr:     addr,
		callback: f.Progress,
		interval: f.progressInterval(),
		total:    -1,
	}
}

// begin starts the clock of a transfer that already has done bytes.
func (m *meter) begin(done, total int64) {
	m.start = time.Now()
	m.last = m.start
	m.resumedAt, m.done, m.total = done, done, total
	if m.callback != nil {
		m.callback(m.addr, m.done, m.total)
	}
}

func (m *meter) add(n int) {
	m.done += int64(n)
	if now := time.Now(); now.Sub(m.last) >= m.interval && m.callback != nil {
		m.last = now
		m.callback(m.addr, m.done, m.total)
	}
}

// finish reports the end of the transfer and writes its line to the log.
func (m *meter) finish() {
	if m.callback != nil {
		m.callback(m.addr, m.done, m.total)
	}
	m.report(time.Now())
}

func (m *meter) report(now time.Time) {
	rate := ""
	if secs := now.Sub(m.start).Seconds(); secs > 0 {
		rate = fmt.Sprintf(" at %s/s", human.Bytes(int64(float64(m.done-m.resumedAt)/secs)))
	}
	if m.total >= 0 {
		pct := 100
		if m.total > 0 {
			pct = int(m.done * 100 / m.total)
		}
		fmt.Fprintf(m.log, "%s: %s / %s (%d%%)%s\n", m.label, human.Bytes(m.done), human.Bytes(m.total), pct, rate)
		return
	}
	fmt.Fprintf(m.log, "%s: %s%s\n", m.label, human.Bytes(m.done), rate)
}
