package run

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/nolink"
	"github.com/kilnbuild/kiln/engine/sandbox"
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
	return filepath.Join(LogDir(stateDir, a), start.UTC().Format("20060102T150405.000000000Z")+RunLogSuffix(key))
}

// RunLogSuffix ends the name of the log of every run of key.
func RunLogSuffix(key string) string { return "-" + human.Short(key) + ".log" }

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
//
// Write never fails: a log that cannot be written (a full disk) must not end
// the node, which would die of SIGPIPE once kiln stopped reading its output.
// The output still reaches the hook and the tail; what the file missed is
// counted, noted in the file once writes succeed again, and reported by
// Problem.
type nodeLog struct {
	mu    sync.Mutex
	path  string
	f     *os.File
	first error // the first write error, for Problem
	lost  int64 // bytes not written since the last note in the file
	total int64 // bytes not written in all
	buf   []byte
	tail  []string
	// refused are the first lines that read as a refusal (Permission
	// denied): what the sandbox refused a run that went on regardless.
	refused []string
	line    func(string)
}

const (
	tailLines    = 20
	refusedLines = 64
)

// openLog starts a new log at path. Its folder, like the file, is made at
// the first byte written.
func openLog(path string, line func(string)) *nodeLog {
	return &nodeLog{path: path, line: line}
}

func (l *nodeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.store(p)
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
	return len(p), nil
}

// logBuffers hold what ReadFrom reads. os/exec copies a child's output
// into a writer that is not a file through the writer's ReadFrom when it has
// one, and otherwise allocates a 32 KiB buffer per command: on a pipeline of
// 10,000 nodes, 300 MB of garbage per apply.
var logBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// ReadFrom writes what r gives to the log until r ends, as Write would.
func (l *nodeLog) ReadFrom(r io.Reader) (int64, error) {
	bp := logBuffers.Get().(*[]byte)
	defer logBuffers.Put(bp)
	var total int64
	for {
		n, err := r.Read(*bp)
		if n > 0 {
			_, _ = l.Write((*bp)[:n])
			total += int64(n)
		}
		switch {
		case err == io.EOF:
			return total, nil
		case err != nil:
			return total, err
		}
	}
}

// store writes p to the file, opening it (and making its folder) at the
// first write.
func (l *nodeLog) store(p []byte) {
	if l.f == nil {
		f, err := nolink.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
		if errors.Is(err, fs.ErrNotExist) {
			if err = os.MkdirAll(filepath.Dir(l.path), 0o755); err == nil {
				f, err = nolink.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
			}
		}
		if err != nil {
			l.miss(err, len(p))
			return
		}
		l.f = f
	}
	if l.lost > 0 {
		note := fmt.Sprintf("kiln: %d bytes of output are missing here: %v\n", l.lost, l.first)
		if _, err := l.f.WriteString(note); err != nil {
			l.miss(err, len(p))
			return
		}
		l.lost = 0
	}
	if n, err := l.f.Write(p); err != nil {
		l.miss(err, len(p)-n)
	}
}

func (l *nodeLog) miss(err error, n int) {
	if l.first == nil {
		l.first = err
	}
	l.lost += int64(n)
	l.total += int64(n)
}

// Problem reports whether writing the log file failed, and how much of the
// output it misses.
func (l *nodeLog) Problem() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		return nil
	}
	return &LogError{Path: l.path, Lost: l.total, Err: l.first}
}

// LogError says that a node's log file misses output it could not write.
type LogError struct {
	Path string
	Lost int64 // bytes of output not written
	Err  error
}

func (e *LogError) Error() string {
	problem := ""
	switch {
	case errors.Is(e.Err, syscall.ENOSPC):
		problem = "disk full: "
	case errors.Is(e.Err, syscall.EDQUOT):
		problem = "disk quota exceeded: "
	}
	return fmt.Sprintf("writing the log %s failed (%s%v): %d bytes of the output are missing from it (the node ran on)", e.Path, problem, e.Err, e.Lost)
}

func (e *LogError) Unwrap() error { return e.Err }

func (l *nodeLog) emit(s string) {
	if len(l.refused) < refusedLines && sandbox.Refused(s) {
		l.refused = append(l.refused, s)
	}
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

// Refused are the first lines of the output that read as a refusal.
func (l *nodeLog) Refused() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.refused...)
}
