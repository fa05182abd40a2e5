package report

import (
	"fmt"
	"html"
	"strings"
	"time"
)

// Timeline geometry, in CSS pixels.
const (
	tlLabel = 250 // the column of node names
	tlChart = 820 // the time axis
	tlRow   = 22
	tlBar   = 14
	tlAxis  = 28 // the axis above the rows
)

var esc = html.EscapeString

// timelineTicks are the tick spacings the time axis chooses from.
var timelineTicks = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 48 * time.Hour,
}

// timeline writes the Gantt chart: one row per drawn node with its queue
// time (hatched), its turn before its command (light) and its run (one
// rect.bar, coloured by class); the critical path is outlined.
func (m *model) timeline(b *strings.Builder) {
	rows := m.timelineRows()
	span := m.end.Sub(m.start)
	if span <= 0 {
		span = time.Second
	}
	x := func(t time.Time) float64 {
		if t.IsZero() {
			t = m.end
		}
		return tlLabel + float64(t.Sub(m.start))/float64(span)*tlChart
	}
	height := tlAxis + len(rows)*tlRow + 8
	fmt.Fprintf(b, `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="timeline of run %d">`,
		tlLabel+tlChart+20, height, tlLabel+tlChart+20, height, m.run.ID)
	b.WriteString(`<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f3f4f6"/><line x1="0" y1="0" x2="0" y2="6" stroke="#9ca3af" stroke-width="2"/></pattern></defs>`)
	// The axis: a tick every step, labelled by the time since the start.
	step := timelineTicks[len(timelineTicks)-1]
	for _, s := range timelineTicks {
		if span/s <= 8 {
			step = s
			break
		}
	}
	for t := time.Duration(0); t <= span; t += step {
		px := tlLabel + float64(t)/float64(span)*tlChart
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`, px, tlAxis-6, px, height-4)
		fmt.Fprintf(b, `<text class="tick" x="%.1f" y="%d">%s</text>`, px, tlAxis-10, tickText(t, step))
	}
	for k, w := range rows {
		y := tlAxis + k*tlRow
		by := y + (tlRow-tlBar)/2
		label := w.n.Addr
		if r := []rune(label); len(r) > 36 {
			label = string(r[:35]) + "…"
		}
		crit := ""
		if w.critical {
			crit = " crit"
		}
		fmt.Fprintf(b, `<a href="#node-%d"><text class="label%s" x="%d" y="%d">%s</text></a>`, w.i, crit, tlLabel-8, y+tlRow/2+4, esc(label))
		if !w.started.IsZero() && w.queued > 0 {
			fmt.Fprintf(b, `<rect class="queue" x="%.1f" y="%d" width="%.1f" height="%d"><title>%s queued %s (waiting for a slot or resources)</title></rect>`,
				x(w.ready), by, x(w.started)-x(w.ready), tlBar, esc(w.n.Addr), durationText(w.queued))
		}
		from := w.started
		if !w.began.IsZero() {
			if w.pending > 0 {
				fmt.Fprintf(b, `<rect class="queue batch" x="%.1f" y="%d" width="%.1f" height="%d"><title>%s: submitted and pending in %s's queue, %s</title></rect>`,
					x(w.started), by, x(w.began)-x(w.started), tlBar, esc(w.n.Addr), esc(w.n.Executor), durationText(w.pending))
			} else if w.began.After(w.started) && !w.started.IsZero() {
				fmt.Fprintf(b, `<rect class="prep %s" x="%.1f" y="%d" width="%.1f" height="%d"><title>%s: deciding and preparing, %s</title></rect>`,
					w.class, x(w.started), by, x(w.began)-x(w.started), tlBar, esc(w.n.Addr), durationText(w.began.Sub(w.started)))
			}
			from = w.began
		}
		x0, x1 := x(from), x(w.ended)
		if from.IsZero() { // skipped when it ended; pending: where the run is now
			x0 = x1
		}
		width := x1 - x0
		if width < 2 {
			width = 2
		}
		fmt.Fprintf(b, `<a href="#node-%d"><rect class="bar %s%s" data-node="%s" x="%.1f" y="%d" width="%.1f" height="%d" rx="2"><title>%s</title></rect></a>`,
			w.i, w.class, crit, esc(w.n.Addr), x0, by, width, tlBar, esc(barTitle(w)))
	}
	b.WriteString(`</svg>`)
}

// tickText labels an axis tick: seconds, minutes or hours since the start.
func tickText(t, step time.Duration) string {
	switch {
	case step < 100*time.Millisecond:
		return fmt.Sprintf("%dms", t.Milliseconds())
	case step < time.Second:
		return fmt.Sprintf("%.1fs", t.Seconds())
	case step < time.Minute:
		return fmt.Sprintf("%ds", int(t.Seconds()))
	case step < time.Hour:
		return fmt.Sprintf("%dm", int(t.Minutes()))
	}
	return fmt.Sprintf("%dh", int(t.Hours()))
}

func barTitle(w *row) string {
	parts := []string{w.n.Addr}
	if w.action != "" {
		parts = append(parts, w.action)
	}
	parts = append(parts, w.outcome)
	if w.ran > 0 {
		parts = append(parts, "ran "+durationText(w.ran))
	}
	if w.queued > 0 {
		parts = append(parts, "queued "+durationText(w.queued))
	}
	if w.pending > 0 {
		parts = append(parts, "pending in "+w.n.Executor+"'s queue "+durationText(w.pending))
	}
	if w.critical {
		parts = append(parts, "on the critical path")
	}
	return strings.Join(parts, " · ")
}
