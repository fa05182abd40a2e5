package proc

import (
	"io"
	"sync"
)

// Tail keeps the last Max bytes written to it, for error messages that
// quote the end of a process's output.
type Tail struct {
	Max int
	buf []byte
}

func (t *Tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.Max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string { return string(t.buf) }

// SyncWriter serialises writes, for a writer shared by a process's stdout
// and stderr copiers.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}
