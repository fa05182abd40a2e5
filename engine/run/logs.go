package run

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
)

// Each run of a node writes its own log, named by the run's start time and
// key, under .kiln/logs/KIND.NAME/; the record of the result keeps its log's
// path, so a restored result brings its own log back. .kiln/logs/KIND.NAME.log
// is a symbolic link to the newest run's log.

// LogPath is the link to a node's newest log.
func LogPath(stateDir string, a addr.Node) string {
	return filepath.Join(stateDir, "logs", a.FileName()+".log")
}

// LogDir holds the logs of every run of a node.
func LogDir(stateDir string, a addr.Node) string {
	return filepath.Join(stateDir, "logs", a.FileName())
}

// RunLogPath is the log of one run of a node.
func RunLogPath(stateDir string, a addr.Node, key string, start time.Time) string {
	if len(key) > 12 {
		key = key[:12]
	}
	return filepath.Join(LogDir(stateDir, a), start.UTC().Format("20060102T150405.000000000Z")+"-"+key+".log")
}

// LinkLatest points the node's LogPath at the newest run's log.
func LinkLatest(stateDir string, a addr.Node, runLog string) {
	link := LogPath(stateDir, a)
	rel, err := filepath.Rel(filepath.Dir(link), runLog)
	if err != nil {
		return
	}
	tmp := link + ".new"
	_ = os.Remove(tmp)
	if os.Symlink(rel, tmp) == nil {
		if fi, err := os.Lstat(link); err == nil && fi.Mode().IsRegular() {
			_ = os.Rename(link, link+".1") // a log written before logs were per run
		}
		_ = os.Rename(tmp, link)
	}
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

// openLog starts a new log at path.
func openLog(path string, line func(string)) (*nodeLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
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
