package remotecache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
)

// Limits bound how slowly a server may move a body, in either direction.
type Limits struct {
	// Stall ends a transfer when no byte moved for this long
	// (stall_timeout); 0 means never.
	Stall time.Duration
	// MinRate ends a transfer that, over any stretch of Stall after the
	// first, moved fewer than MinRate bytes a second (min_rate); 0 means no
	// minimum. A server that trickles a byte a second is cut after Stall.
	MinRate int64
}

// DefaultLimits are the limits of a client the cache block says nothing
// about.
var DefaultLimits = Limits{Stall: 30 * time.Second, MinRate: 10 << 10}

// SlowError says a transfer was cut because the server was too slow: it
// sent or took nothing for the stall timeout, or less than the minimum
// rate. It is never retried: a server that slow is not asked again.
type SlowError struct {
	What   string // "GET URL"
	Reason string
}

func (e *SlowError) Error() string { return e.What + ": " + e.Reason }

// meter watches one body while it moves, counting only the time the
// transfer waits on the server: inside Read for a response body (a slow
// reader of it, kiln itself, is not the server's fault), between Reads for
// a request body (the transport asks for more once the server took what it
// had). It cancels the request with a *SlowError when one wait lasts
// Stall, or when waits adding up to Stall moved fewer than MinRate bytes a
// second.
type meter struct {
	what   string
	lim    Limits
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	stopped bool
	stall   *time.Timer   // armed while the transfer waits
	since   time.Time     // when the current wait began
	waited  time.Duration // in the current window
	moved   int64         // in the current window
}

func newMeter(what string, lim Limits, cancel context.CancelCauseFunc) *meter {
	m := &meter{what: what, lim: lim, cancel: cancel}
	if lim.Stall > 0 {
		m.stall = time.AfterFunc(time.Hour, func() {
			m.fail(fmt.Sprintf("no data for %s (stall_timeout)", lim.Stall))
		})
		m.stall.Stop()
	}
	return m
}

// wait says the transfer now waits on the server.
func (m *meter) wait() {
	if m.stall == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.stopped {
		m.since = time.Now()
		m.stall.Reset(m.lim.Stall)
	}
}

// moved says the wait ended with n bytes moved.
func (m *meter) done(n int) {
	if m.stall == nil {
		return
	}
	m.mu.Lock()
	if m.stopped || m.since.IsZero() {
		m.mu.Unlock()
		return
	}
	m.stall.Stop()
	m.waited += time.Since(m.since)
	m.since = time.Time{}
	m.moved += int64(n)
	waited, moved := m.waited, m.moved
	if waited >= m.lim.Stall {
		m.waited, m.moved = 0, 0
	}
	m.mu.Unlock()
	if m.lim.MinRate > 0 && waited >= m.lim.Stall && float64(moved) < waited.Seconds()*float64(m.lim.MinRate) {
		m.fail(fmt.Sprintf("%s in %s, below min_rate %s/s", human.Bytes(moved), waited.Round(time.Millisecond), human.Bytes(m.lim.MinRate)))
	}
}

func (m *meter) fail(reason string) {
	m.mu.Lock()
	stopped := m.stopped
	m.mu.Unlock()
	if !stopped {
		m.cancel(&SlowError{What: m.what, Reason: reason})
	}
}

func (m *meter) stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped = true
	if m.stall != nil {
		m.stall.Stop()
	}
}

// meteredBody is a response body or a request body under a meter. Reads
// that fail because the meter cancelled the request return its
// *SlowError.
type meteredBody struct {
	r      io.Reader
	c      io.Closer // nil for a request body
	size   int64     // the bytes a request body holds; the watch ends there
	upload bool      // a request body
	n      int64
	last   int // what the last Read of a request body gave
	m      *meter
	ctx    context.Context
	done   func() // called once on Close, after the body is closed
	close  sync.Once
}

func (b *meteredBody) Read(p []byte) (int, error) {
	if b.upload {
		b.m.done(b.last)
	} else {
		b.m.wait()
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF || b.size > 0 && b.n >= b.size:
		b.m.stop()
	case err != nil:
		var slow *SlowError
		if errors.As(context.Cause(b.ctx), &slow) {
			err = slow
		}
	case b.upload:
		b.last = n
		b.m.wait()
	default:
		b.m.done(n)
	}
	return n, err
}

func (b *meteredBody) Close() error {
	var err error
	b.close.Do(func() {
		b.m.stop()
		if b.c != nil {
			err = b.c.Close()
		}
		if b.done != nil {
			b.done()
		}
	})
	return err
}
