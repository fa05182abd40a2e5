package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/metrics"
)

// Chart geometry, in CSS pixels.
const (
	chW     = 300
	chH     = 170
	chLeft  = 50
	chRight = 10
	chTop   = 10
	chBot   = 24
)

// chart writes one metric's curve (and the compared run's, dashed) with
// step on x. Each logged step is one circle.pt while there are at most
// maxDots of them.
func chart(b *strings.Builder, key string, run, cmp []metrics.Point, runID, cmpID int) {
	sc, ok := scaleOf(run, cmp)
	if !ok {
		return
	}
	xlo, xhi, yticks, px, py := sc.xlo, sc.xhi, sc.yticks, sc.px, sc.py
	pw, ph := float64(chW-chLeft-chRight), float64(chH-chTop-chBot)

	fmt.Fprintf(b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" data-key="%s" data-points="%d">`, chW, chH, chW, chH, esc(key), len(run))
	for _, t := range yticks {
		y := py(t)
		fmt.Fprintf(b, `<line class="grid" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/><text class="ytick" x="%d" y="%.1f">%s</text>`, chLeft, y, chW-chRight, y, chLeft-4, y+3, esc(numberText(t)))
	}
	for _, t := range niceTicks(xlo, xhi, 5) {
		if t != math.Trunc(t) || t < xlo || t > xhi {
			continue
		}
		fmt.Fprintf(b, `<text class="xtick" x="%.1f" y="%d">%s</text>`, px(t), chH-8, strconv.FormatFloat(t, 'f', -1, 64))
	}
	fmt.Fprintf(b, `<rect class="frame" x="%d" y="%d" width="%.0f" height="%.0f"/>`, chLeft, chTop, pw, ph)
	if len(cmp) > 0 {
		curve(b, "cmp", cmp, px, py, fmt.Sprintf("run %d", cmpID))
	}
	curve(b, "run", run, px, py, fmt.Sprintf("run %d", runID))
	b.WriteString(`</svg>`)
}

// curve writes one run's line, broken where a value is not finite, and a
// dot per step.
func curve(b *strings.Builder, class string, pts []metrics.Point, px, py func(float64) float64, name string) {
	line := reduce(pts, chW-chLeft-chRight)
	var d strings.Builder
	pen := false
	for _, p := range line {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		fmt.Fprintf(&d, "%s%.1f,%.1f ", cmd, px(float64(p.Step)), py(p.Value))
		pen = true
	}
	fmt.Fprintf(b, `<path class="curve %s" d="%s"/>`, class, strings.TrimSpace(d.String()))
	if len(pts) > maxDots {
		return
	}
	for _, p := range pts {
		y := py(p.Value)
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			y = chTop // marked at the top, hollow: the step logged a non-number
			class += " nan"
		}
		fmt.Fprintf(b, `<circle class="pt %s" cx="%.1f" cy="%.1f" r="2.5"><title>%s, step %d: %s</title></circle>`,
			class, px(float64(p.Step)), y, esc(name), p.Step, esc(numberText(p.Value)))
		class = strings.TrimSuffix(class, " nan")
	}
}

// reduce keeps a curve drawable: beyond maxCurvePoints, the first, lowest,
// highest and last point of each of width columns.
func reduce(pts []metrics.Point, width int) []metrics.Point {
	if len(pts) <= maxCurvePoints {
		return pts
	}
	lo, hi := pts[0].Step, pts[len(pts)-1].Step
	span := float64(hi-lo) + 1
	var out []metrics.Point
	for start := 0; start < len(pts); {
		col := int(float64(pts[start].Step-lo) / span * float64(width))
		end := start
		minI, maxI := start, start
		for end < len(pts) && int(float64(pts[end].Step-lo)/span*float64(width)) == col {
			if pts[end].Value < pts[minI].Value {
				minI = end
			}
			if pts[end].Value > pts[maxI].Value {
				maxI = end
			}
			end++
		}
		keep := []int{start, minI, maxI, end - 1}
		prev := -1
		for _, k := range sortedUnique(keep) {
			if k != prev {
				out = append(out, pts[k])
			}
			prev = k
		}
		start = end
	}
	return out
}

func sortedUnique(a []int) []int {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	return a
}

// niceTicks returns about n round values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	span := hi - lo
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*mag >= raw {
			step = f * mag
			break
		}
	}
	first := math.Floor(lo/step) * step
	var out []float64
	for v := first; v <= hi+step*0.5 && len(out) < 2*n+2; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// numberText writes a metric value compactly: 0.25, 1.2e-06, 10234, NaN.
func numberText(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case math.Abs(v) >= 1e5 || math.Abs(v) < 1e-3:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// chartScale maps steps and values onto a chart's plot area.
type chartScale struct {
	xlo, xhi, ylo, yhi float64
	yticks             []float64
}

// scaleOf is the scale that holds every point of the series (values that
// are not finite left out); false when they hold no point.
func scaleOf(series ...[]metrics.Point) (chartScale, bool) {
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, pts := range series {
		for _, p := range pts {
			xlo, xhi = math.Min(xlo, float64(p.Step)), math.Max(xhi, float64(p.Step))
			if finiteValue(p.Value) {
				ylo, yhi = math.Min(ylo, p.Value), math.Max(yhi, p.Value)
			}
		}
	}
	if math.IsInf(xlo, 1) {
		return chartScale{}, false
	}
	if xhi == xlo {
		xlo, xhi = xlo-1, xhi+1
	}
	if math.IsInf(ylo, 1) {
		ylo, yhi = 0, 1
	}
	if yhi == ylo {
		pad := math.Max(math.Abs(ylo)*0.1, 1)
		ylo, yhi = ylo-pad, yhi+pad
	}
	yticks := niceTicks(ylo, yhi, 4)
	ylo, yhi = math.Min(ylo, yticks[0]), math.Max(yhi, yticks[len(yticks)-1])
	return chartScale{xlo: xlo, xhi: xhi, ylo: ylo, yhi: yhi, yticks: yticks}, true
}

// px is where step lies across the plot area.
func (c chartScale) px(step float64) float64 {
	return chLeft + (step-c.xlo)/(c.xhi-c.xlo)*float64(chW-chLeft-chRight)
}

// py is where value v lies down the plot area.
func (c chartScale) py(v float64) float64 {
	return chTop + (c.yhi-v)/(c.yhi-c.ylo)*float64(chH-chTop-chBot)
}
