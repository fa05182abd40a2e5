package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kilnbuild/kiln/engine/nolink"
)

// ErrWriterClosed is returned by Writer methods called after Close.
var ErrWriterClosed = errors.New("state writer already closed")

// Writer commits records during an apply. The caller holds the Lock; only one
// Writer exists per state folder at a time.
//
// Commit appends one line to an in-memory buffer and returns; a background
// goroutine writes everything buffered since its last round with one write
// and one fsync (group commit), so N commits cost far fewer than N fsyncs and
// the snapshot is rewritten only once, by Close.
// minFlushInterval is the least time between two journal writes while
// nobody waits for durability.
const minFlushInterval = 20 * time.Millisecond

type Writer struct {
	hurry atomic.Bool // someone waits in Flush or Close
	dir   string
	s     *State
	file  *os.File

	mu        sync.Mutex
	durableCh *sync.Cond // broadcast when durable advances or err is set
	pending   []byte     // encoded journal lines not yet written
	appended  uint64     // journal lines appended so far (the begin line included)
	durable   uint64     // journal lines written and fsynced
	err       error      // first write error; the journal is not appended to after it
	committed bool       // any put or delete since OpenWriter
	closed    bool

	closeOnce sync.Once
	closeErr  error

	kick    chan struct{} // wakes the flusher; capacity 1
	stopped chan struct{} // closed when the flusher has exited

	batches atomic.Int64 // write+fsync rounds of the flusher
}

// OpenWriter starts recording changes to s, which must be the state loaded
// from dir (the lineage and serial are checked). A journal left by an
// interrupted apply, already replayed into s by Load, is first compacted
// into the snapshot; a journal that was already compacted is discarded.
func OpenWriter(dir string, s *State) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating state folder: %w", err)
	}
	onDisk, found, err := load(dir)
	if err != nil {
		return nil, err
	}
	if (found.snapshot || found.replayed) && (onDisk.Lineage != s.Lineage || onDisk.Serial != s.Serial) {
		return nil, fmt.Errorf("state in %s changed since it was loaded (lineage %s serial %d on disk, %s serial %d in memory): load it again",
			dir, onDisk.Lineage, onDisk.Serial, s.Lineage, s.Serial)
	}
	if found.replayed {
		// s holds what the interrupted apply recorded; make it the snapshot
		// before the journal is started afresh.
		if err := compact(dir, s, s.Serial); err != nil {
			return nil, fmt.Errorf("recovering the journal of an interrupted apply: %w", err)
		}
	}
	journalPath := filepath.Join(dir, journalName)
	begin, err := encodeJournalLine(journalEntry{Op: opBegin, Version: FormatVersion, Lineage: s.Lineage, Serial: s.Serial})
	if err != nil {
		return nil, err
	}
	f, err := nolink.OpenFile(journalPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening state journal: %w", err)
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	w := &Writer{dir: dir, s: s, file: f, pending: begin, appended: 1,
		kick: make(chan struct{}, 1), stopped: make(chan struct{})}
	w.durableCh = sync.NewCond(&w.mu)
	if s.Records == nil {
		s.Records = map[string]*Record{}
	}
	if s.History == nil {
		s.History = map[string]*Record{}
	}
	go w.flushLoop()
	return w, nil
}

// Commit records r (a copy of it) as the state of r.Addr, in the journal and
// in the State's Records. It does not wait for the disk; Flush does.
func (w *Writer) Commit(r *Record) error {
	if r == nil || r.Addr == "" {
		return errors.New("committing a record without an address")
	}
	c := r.clone()
	line, err := encodeJournalLine(journalEntry{Op: opPut, Record: c})
	if err != nil {
		return err
	}
	return w.append(line, func() bool { w.s.put(c); return true })
}

// Forget removes the record of addr; its result stays restorable from
// History. Forgetting an unknown address is a no-op.
func (w *Writer) Forget(addr string) error {
	line, err := encodeJournalLine(journalEntry{Op: opDelete, Addr: addr})
	if err != nil {
		return err
	}
	return w.append(line, func() bool { return w.s.remove(addr) })
}

// Drop removes key's record from History, once its run folder is gone.
// Dropping an unknown key is a no-op.
func (w *Writer) Drop(key string) error {
	line, err := encodeJournalLine(journalEntry{Op: opDrop, Key: key})
	if err != nil {
		return err
	}
	return w.append(line, func() bool { return w.s.drop(key) })
}

// Referenced reports whether a record or a history record names entry as
// its result, or a failure keeps it to resume in.
func (w *Writer) Referenced(entry string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.s.Referenced(entry)
}

// append applies a change to the State and queues its journal line, both
// under the mutex so the journal order is the order of the changes. A change
// that does not apply (apply returns false) is not journaled.
func (w *Writer) append(line []byte, apply func() bool) error {
	w.mu.Lock()
	switch {
	case w.closed:
		w.mu.Unlock()
		return ErrWriterClosed
	case w.err != nil:
		err := w.err
		w.mu.Unlock()
		return err
	}
	if !apply() {
		w.mu.Unlock()
		return nil
	}
	w.pending = append(w.pending, line...)
	w.appended++
	w.committed = true
	w.mu.Unlock()
	w.wake()
	return nil
}

func (w *Writer) wake() {
	select {
	case w.kick <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Record returns the record of addr. Use it rather than State.Records while
// the Writer is open: it reads under the Writer's mutex.
func (w *Writer) Record(addr string) (*Record, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.s.Records[addr]
	return r, ok
}

// Flush waits until everything committed so far is durable.
func (w *Writer) Flush() error {
	w.hurry.Store(true)
	defer w.hurry.Store(false)
	w.mu.Lock()
	defer w.mu.Unlock()
	target := w.appended
	if w.durable < target {
		w.wake()
	}
	for w.durable < target && w.err == nil {
		w.durableCh.Wait()
	}
	return w.err
}

// flushLoop is the group-commit goroutine: each round writes and fsyncs
// whatever was appended while the previous round ran.
func (w *Writer) flushLoop() {
	defer close(w.stopped)
	var spare []byte
	var last time.Time
	for range w.kick {
		// Commits that arrive within minFlushInterval of the previous write
		// share the next one: an apply of many quick nodes costs a few
		// fsyncs a second, not one per node. Flush and Close do not wait.
		if wait := minFlushInterval - time.Since(last); wait > 0 && !w.hurry.Load() {
			time.Sleep(wait)
		}
		last = time.Now()
		w.mu.Lock()
		batch, upto, stop := w.pending, w.appended, w.closed
		w.pending = spare[:0]
		failed := w.err != nil
		w.mu.Unlock()

		var err error
		if len(batch) > 0 && !failed {
			err = w.writeBatch(batch)
		}
		spare = batch

		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = fmt.Errorf("recording state in %s: %w", w.dir, err)
		} else if err == nil && !failed {
			w.durable = upto
		}
		w.durableCh.Broadcast()
		done := stop && len(w.pending) == 0
		w.mu.Unlock()
		if done {
			return
		}
	}
}

func (w *Writer) writeBatch(batch []byte) error {
	w.batches.Add(1)
	_, err := w.file.Write(batch)
	if err == nil {
		err = w.file.Sync()
	}
	if err != nil {
		return fmt.Errorf("appending to %s: %s%w; %s", w.file.Name(), spaceProblem(err), err, spaceAdvice(err))
	}
	return nil
}

// Close flushes the journal and, if anything was committed, compacts it: the
// snapshot is rewritten with Serial+1, the previous one kept as
// state.json.backup, and the journal removed. If the journal could not be
// written but the snapshot can, the state is complete and Close succeeds.
func (w *Writer) Close() error {
	w.closeOnce.Do(func() { w.closeErr = w.close() })
	return w.closeErr
}

func (w *Writer) close() error {
	flushErr := w.Flush()
	w.mu.Lock()
	w.closed = true
	committed := w.committed
	w.mu.Unlock()
	w.wake()
	<-w.stopped

	closeErr := w.file.Close()
	if !committed {
		if err := os.Remove(w.file.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing state journal: %w", err)
		}
		return nil
	}
	if err := compact(w.dir, w.s, w.s.Serial+1); err != nil {
		return errors.Join(flushErr, closeErr, err)
	}
	w.s.Serial++
	return nil
}
