package metrics

import (
	"bytes"
	"math"
	"strconv"
)

var (
	stepMark = []byte("step:")
	sep      = []byte(" - ")
)

// verl parses a line of verl's console logger: "step:N - key:value - ...",
// possibly after a prefix such as Ray's "(TaskRunner pid=123) ".
func (p *Parser) verl(b []byte) {
	at := 0
	for {
		i := bytes.Index(b[at:], stepMark)
		if i < 0 {
			return
		}
		i += at
		if i == 0 || !wordByte(b[i-1]) {
			b = b[i+len(stepMark):]
			break
		}
		at = i + len(stepMark)
	}
	// The step: digits, then the end of the line or the first separator.
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	step, ok := parseStep(b[:n])
	if !ok {
		return
	}
	rest := b[n:]
	if !bytes.HasPrefix(rest, sep) {
		return // "step:3" alone, or "step:3rd ..." — not the logger's line
	}
	p.sample.Step = step
	p.sample.Values = p.sample.Values[:0]
	for bytes.HasPrefix(rest, sep) {
		rest = rest[len(sep):]
		end := bytes.Index(rest, sep)
		if end < 0 {
			end = len(rest)
		}
		p.pair(rest[:end])
		rest = rest[end:]
	}
	p.send()
}

// pair adds one "key:value" of a verl line; the key is what comes before
// the last colon, since keys may hold colons and values never do.
func (p *Parser) pair(seg []byte) {
	c := bytes.LastIndexByte(seg, ':')
	if c <= 0 {
		return
	}
	key := bytes.TrimSpace(seg[:c])
	if len(key) == 0 {
		return
	}
	if v, ok := pyNumber(seg[c+1:]); ok {
		p.add(key, v)
	}
}

// wordByte reports whether c can be part of a metric key, so that "step:"
// preceded by it is the end of a longer key (global_step:, timing_s/step:).
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '/' || c == '-' || c == '.' || c == '@'
}

// pyNumber parses the repr of a Python number as pprint.pformat writes it:
// 3, -0.25, 1e-06, nan, inf, True, and wrapped scalars such as
// np.float64(0.5), np.int64(7), numpy.float32(nan), Decimal('1.5') and
// Fraction(1, 3).
func pyNumber(b []byte) (float64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0, false
	}
	if c := b[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		return parseFloat(b)
	}
	switch string(b) {
	case "nan":
		return math.NaN(), true
	case "inf":
		return math.Inf(1), true
	case "True":
		return 1, true
	case "False":
		return 0, true
	}
	open := bytes.IndexByte(b, '(')
	if open < 0 || b[len(b)-1] != ')' {
		return 0, false
	}
	name, inner := b[:open], b[open+1:len(b)-1]
	switch {
	case bytes.HasPrefix(name, []byte("np.")), bytes.HasPrefix(name, []byte("numpy.")):
		return pyNumber(inner)
	case string(name) == "Decimal":
		inner = bytes.Trim(inner, `'"`)
		if v, err := strconv.ParseFloat(string(inner), 64); err == nil {
			return v, true
		}
	case string(name) == "Fraction":
		num, den, ok := bytes.Cut(inner, []byte(","))
		if !ok {
			return 0, false
		}
		a, errA := strconv.ParseFloat(string(bytes.TrimSpace(num)), 64)
		d, errD := strconv.ParseFloat(string(bytes.TrimSpace(den)), 64)
		if errA == nil && errD == nil && d != 0 {
			return a / d, true
		}
	}
	return 0, false
}
