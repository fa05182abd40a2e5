package metrics

import (
	"bytes"
	"io"
	"regexp"
)

// MaxLine is the longest line parsed; a longer one is skipped, so memory
// stays bounded whatever a process prints.
const MaxLine = 1 << 20

// Value is one metric's value in a sample.
type Value struct {
	Key   string
	Value float64
}

// Sample is what one log line reported for one step.
type Sample struct {
	Step   int64
	Values []Value // in the line's order
}

// Stats count what a Parser read.
type Stats struct {
	Bytes     int64 // bytes written to the parser
	Lines     int64 // lines seen, including skipped ones
	Samples   int64 // samples emitted
	LongLines int64 // lines skipped for being longer than MaxLine
}

// Parser reads log lines and emits the samples they report. It is an
// io.Writer, so a log can be copied into it in pieces of any size; it is
// not safe for concurrent use.
type Parser struct {
	spec  *Spec
	emit  func(*Sample)
	Stats Stats

	pending []byte // the start of a line whose end has not been written yet
	long    bool   // the pending line passed MaxLine: skip to its end
	keys    map[string]internedKey
	matches []int64 // per pattern: lines matched, the step of a pattern without one
	sample  Sample
	path    []byte // jsonl: the key path of nested objects
}

type internedKey struct {
	key  string
	keep bool
}

// NewParser returns a parser for spec that calls emit with each sample. The
// sample is reused after emit returns: copy what must be kept.
func NewParser(spec *Spec, emit func(*Sample)) *Parser {
	return &Parser{spec: spec, emit: emit, keys: map[string]internedKey{}, matches: make([]int64, len(spec.Patterns))}
}

// Write parses the complete lines in b and keeps an unterminated last line
// for the next Write. It never fails.
func (p *Parser) Write(b []byte) (int, error) {
	n := len(b)
	p.Stats.Bytes += int64(n)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.hold(b)
			break
		}
		line := b[:i]
		b = b[i+1:]
		if len(p.pending) > 0 || p.long {
			p.hold(line)
			line = p.pending
			if p.long {
				line = nil
			}
			p.pending, p.long = p.pending[:0], false
			if line == nil {
				p.Stats.Lines++
				p.Stats.LongLines++
				continue
			}
		}
		p.Line(line)
	}
	return n, nil
}

// hold keeps b as (more of) the pending line, up to MaxLine.
func (p *Parser) hold(b []byte) {
	if p.long {
		return
	}
	if len(p.pending)+len(b) > MaxLine {
		p.long = true
		p.pending = p.pending[:0]
		return
	}
	p.pending = append(p.pending, b...)
}

// Close parses a last line that ended without a newline.
func (p *Parser) Close() {
	if p.long {
		p.Stats.Lines++
		p.Stats.LongLines++
	} else if len(p.pending) > 0 {
		p.Line(p.pending)
	}
	p.pending, p.long = p.pending[:0], false
}

// Scan parses everything r holds, as Write and Close would.
func (p *Parser) Scan(r io.Reader) error {
	buf := make([]byte, 256<<10)
	_, err := io.CopyBuffer(p, struct{ io.Reader }{r}, buf)
	p.Close()
	return err
}

// Line parses one complete line, without its newline. A carriage return
// also ends a line, as a progress bar uses it.
func (p *Parser) Line(line []byte) {
	p.Stats.Lines++
	if len(line) > MaxLine {
		p.Stats.LongLines++
		return
	}
	for {
		i := bytes.IndexByte(line, '\r')
		if i < 0 {
			p.piece(line)
			return
		}
		p.piece(line[:i])
		line = line[i+1:]
	}
}

func (p *Parser) piece(b []byte) {
	switch p.spec.Format {
	case "verl":
		p.verl(b)
	case "jsonl":
		p.jsonl(b)
	}
	for i, re := range p.spec.Patterns {
		p.pattern(i, re, b)
	}
}

// key returns the interned key of b and whether the spec keeps it.
func (p *Parser) key(b []byte) (string, bool) {
	if k, ok := p.keys[string(b)]; ok {
		return k.key, k.keep
	}
	k := internedKey{key: string(b)}
	k.keep = p.spec.keep(k.key)
	if len(p.keys) < 1<<16 { // a log inventing keys cannot grow the table forever
		p.keys[k.key] = k
	}
	return k.key, k.keep
}

// keyString is key for a key already held as a string.
func (p *Parser) keyString(s string) (string, bool) {
	if k, ok := p.keys[s]; ok {
		return k.key, k.keep
	}
	return p.key([]byte(s))
}

// add appends a value to the sample being built.
func (p *Parser) add(key []byte, v float64) {
	if k, keep := p.key(key); keep {
		p.sample.Values = append(p.sample.Values, Value{Key: k, Value: v})
	}
}

// send emits the sample built, if it holds any value.
func (p *Parser) send() {
	if len(p.sample.Values) > 0 {
		p.Stats.Samples++
		p.emit(&p.sample)
	}
	p.sample.Values = p.sample.Values[:0]
}

// pattern matches one user pattern.
func (p *Parser) pattern(i int, re *regexp.Regexp, b []byte) {
	if prefix, _ := re.LiteralPrefix(); prefix != "" && !bytes.Contains(b, []byte(prefix)) {
		return
	}
	m := re.FindSubmatchIndex(b)
	if m == nil {
		return
	}
	p.matches[i]++
	p.sample.Step = p.matches[i]
	p.sample.Values = p.sample.Values[:0]
	names := re.SubexpNames()
	for g := 1; g < len(names); g++ {
		if names[g] == "" || m[2*g] < 0 {
			continue
		}
		text := b[m[2*g]:m[2*g+1]]
		if names[g] == "step" {
			step, ok := parseStep(text)
			if !ok {
				p.sample.Values = p.sample.Values[:0]
				return
			}
			p.sample.Step = step
			continue
		}
		if v, ok := pyNumber(text); ok {
			if k, keep := p.keyString(names[g]); keep {
				p.sample.Values = append(p.sample.Values, Value{Key: k, Value: v})
			}
		}
	}
	p.send()
}

// parseStep reads a non-negative decimal step.
func parseStep(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
