package metrics

import (
	"bufio"
	"encoding/json"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Writer encodes samples as JSON lines: {"step":N,"t":T,"m":{key:value}},
// with T the time in Unix seconds and NaN and infinities written as the
// strings "NaN", "Infinity" and "-Infinity".
type Writer struct {
	w    io.Writer
	buf  []byte
	keys map[string][]byte // keys already encoded as JSON strings
}

// NewWriter returns a Writer to w. Each sample is one Write call on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, keys: map[string][]byte{}}
}

// Write appends one sample, taken at time t.
func (w *Writer) Write(s *Sample, t time.Time) error {
	b := append(w.buf[:0], `{"step":`...)
	b = strconv.AppendInt(b, s.Step, 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendFloat(b, float64(t.UnixMilli())/1000, 'f', -1, 64)
	b = append(b, `,"m":{`...)
	for i, v := range s.Values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, w.key(v.Key)...)
		b = append(b, ':')
		b = appendNumber(b, v.Value)
	}
	b = append(b, "}}\n"...)
	w.buf = b
	_, err := w.w.Write(b)
	return err
}

func (w *Writer) key(k string) []byte {
	if e, ok := w.keys[k]; ok {
		return e
	}
	e, _ := json.Marshal(k)
	if len(w.keys) < 1<<16 {
		w.keys[k] = e
	}
	return e
}

func appendNumber(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// Point is one value of a metric.
type Point struct {
	Step  int64
	Value float64
	Time  time.Time
}

// Series are the values of each metric of one node in one run.
type Series struct {
	Points map[string][]Point // by key, in step order; of repeated steps the last wins
	Bad    int                // lines that did not decode (other than a torn last one)
}

// Keys returns the metric names in sorted order.
func (s *Series) Keys() []string {
	return slices.Sorted(maps.Keys(s.Points))
}

// Steps returns the number of distinct steps that reported any metric.
func (s *Series) Steps() int {
	seen := map[int64]bool{}
	for _, pts := range s.Points {
		for _, p := range pts {
			seen[p.Step] = true
		}
	}
	return len(seen)
}

// ReadSeries reads a file written by Writer. A last line without its
// newline is a write in progress or torn by a crash, and is ignored.
func ReadSeries(r io.Reader) (*Series, error) {
	s := &Series{Points: map[string][]Point{}}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the buffer: read the rest of it.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if !s.add(line) {
			s.Bad++
		}
	}
	for k, pts := range s.Points {
		s.Points[k] = lastPerStep(pts)
	}
	return s, nil
}

// add decodes one line.
func (s *Series) add(line []byte) bool {
	var rec struct {
		Step *int64                     `json:"step"`
		T    float64                    `json:"t"`
		M    map[string]json.RawMessage `json:"m"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Step == nil {
		return false
	}
	sec, frac := math.Modf(rec.T)
	t := time.Unix(int64(sec), int64(frac*1e9)).UTC()
	for k, raw := range rec.M {
		v, ok := decodeNumber(raw)
		if !ok {
			continue
		}
		s.Points[k] = append(s.Points[k], Point{Step: *rec.Step, Value: v, Time: t})
	}
	return true
}

func decodeNumber(raw json.RawMessage) (float64, bool) {
	switch string(raw) {
	case `"NaN"`:
		return math.NaN(), true
	case `"Infinity"`:
		return math.Inf(1), true
	case `"-Infinity"`:
		return math.Inf(-1), true
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	return v, err == nil
}

// lastPerStep sorts points by step, keeping the last written of each step
// (a step logged again after a resume replaces the earlier value).
func lastPerStep(pts []Point) []Point {
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].Step < pts[j].Step })
	out := pts[:0]
	for i, p := range pts {
		if i+1 < len(pts) && pts[i+1].Step == p.Step {
			continue
		}
		out = append(out, p)
	}
	return out
}

// Summary describes one metric's values.
type Summary struct {
	Steps            int
	First, Last      int64 // steps
	LastValue        float64
	Min, Max         float64 // of the finite values; NaN when there are none
	MinStep, MaxStep int64
}

// Summarise returns the summary of one metric's points.
func Summarise(pts []Point) Summary {
	s := Summary{Steps: len(pts), Min: math.NaN(), Max: math.NaN()}
	if len(pts) == 0 {
		return s
	}
	s.First, s.Last, s.LastValue = pts[0].Step, pts[len(pts)-1].Step, pts[len(pts)-1].Value
	for _, p := range pts {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			continue
		}
		if math.IsNaN(s.Min) || p.Value < s.Min {
			s.Min, s.MinStep = p.Value, p.Step
		}
		if math.IsNaN(s.Max) || p.Value > s.Max {
			s.Max, s.MaxStep = p.Value, p.Step
		}
	}
	return s
}
