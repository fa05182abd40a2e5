package proc

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Tail keeps the last Max bytes written to it, for error messages that
// quote the end of a process's output. It is safe for concurrent writes (a
// process's stdout and stderr copiers).
type Tail struct {
	Max int
	mu  sync.Mutex
	buf []byte
	cut bool // the start of buf is the middle of a line
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.Max; over > 0 {
		t.cut = t.buf[over-1] != '\n'
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Lines returns the last n lines kept that are not blank, an unfinished
// last one included, without a trailing carriage return. A line whose
// start was dropped is left out, unless it is the only one.
func (t *Tail) Lines(n int) []string {
	t.mu.Lock()
	s := string(t.buf)
	if i := strings.IndexByte(s, '\n'); t.cut && i >= 0 {
		s = s[i+1:]
	}
	t.mu.Unlock()
	return lastLines(s, n)
}

// tailBytes is how much of a file FileTail reads: enough for many long
// lines.
const tailBytes = 64 << 10

// FileTail returns the last n lines of the file at path that are not
// blank, read from at most its last 64 KiB.
func FileTail(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > tailBytes {
		if _, err := f.Seek(-tailBytes, io.SeekEnd); err != nil {
			return nil, fmt.Errorf("read the end of %s: %w", path, err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return lastLines(string(b), n), nil
}

// LastLines returns the last n non-empty lines of s, trimmed and joined by
// " | ", for one-line error messages that quote a command's output.
func LastLines(s string, n int) string {
	lines := lastLines(s, n)
	if len(lines) == 0 {
		return "no output"
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " | ")
}

func lastLines(s string, n int) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
