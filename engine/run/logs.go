package run

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"

	"github.com/kilnbuild/kiln/engine/addr"
)

// LogPath is where a node's latest log lives.
func LogPath(stateDir string, a addr.Node) string {
	return filepath.Join(stateDir, "logs", a.FileName()+".log")
}

// nodeLog is a node's log file, which also hands each complete line to a
// hook and keeps the last lines for the failure report. The file is created
// at the first byte written: most nodes of a large pipeline print nothing,
// and an empty file per node is a cost on every apply.
type nodeLog struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error
	buf  []byte
	tail []string
	line func(string)
}

const tailLines = 20

// openLog starts a new log for a node; the previous one is kept as .log.1.
func openLog(path string, line func(string)) (*nodeLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); err == nil {
		_ = os.Rename(path, path+".1")
	}
	return &nodeLog{path: path, line: line}, nil
}

func (l *nodeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		l.f, l.err = os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	}
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.f.Write(p)
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.emit(string(bytes.TrimRight(l.buf[:i], "\r")))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 { // a very long line without a newline
		l.emit(string(l.buf))
		l.buf = l.buf[:0]
	}
	return n, err
}

func (l *nodeLog) emit(s string) {
	l.tail = append(l.tail, s)
	if len(l.tail) > tailLines {
		l.tail = l.tail[len(l.tail)-tailLines:]
	}
	if l.line != nil {
		l.line(s)
	}
}

// Close flushes a final unterminated line and closes the file.
func (l *nodeLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(string(l.buf))
		l.buf = nil
	}
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

func (l *nodeLog) Tail() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.tail...)
}
