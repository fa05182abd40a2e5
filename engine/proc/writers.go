package proc

import (
	"io"
	"sync"
)

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
