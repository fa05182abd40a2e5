package remotecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
)

// Push uploads the tree under dir that rec describes, then rec itself: its
// JSON and the Trees of its action-cache entry under /cas/, and last the
// entry, an ActionResult (bazel.go). A file's blob the server already has
// (HEAD answers 200) is not sent again. Each
// file is streamed from disk and hashed on the way: a file that no longer
// matches rec stops the push before the record is written, so the cache
// never serves a record for a tree it does not hold. progress, when not
// nil, is called with the bytes dealt with so far (sent, or found on the
// server) and the bytes of all the blobs to push, first before any is sent
// and then as blobs complete.
func (c *Client) Push(ctx context.Context, dir string, rec *Record, progress func(done, total int64)) (Transfer, error) {
	var t Transfer
	if rec.Format == "" {
		rec.Format = Format
	}
	if rec.Built.IsZero() {
		rec.Built = time.Now().UTC()
	}
	if err := addChunks(dir, rec); err != nil {
		return t, err
	}
	if err := rec.Check(rec.Key); err != nil {
		return t, fmt.Errorf("the record to push is invalid: %w", err)
	}
	if c.Signer != nil {
		rec.Sign(c.Signer)
	}
	if len(rec.Files) > maxFiles {
		return t, fmt.Errorf("the result holds %d files and folders, more than the %d a cache record may list: not pushed", len(rec.Files), maxFiles)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return t, err
	}
	if len(body) > maxRecord {
		return t, fmt.Errorf("its record would be %s (%d files), more than the %s a cache record may be: not pushed", human.Bytes(int64(len(body))), len(rec.Files), human.Bytes(maxRecord))
	}
	seen := map[string]bool{}
	var jobs []blob
	for _, f := range rec.Files {
		if f.Type != "f" {
			continue
		}
		t.Files++
		for _, b := range f.blobs() {
			if b.size == 0 || seen[b.sha256] {
				continue
			}
			seen[b.sha256] = true
			jobs = append(jobs, b)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var total int64
	for _, b := range jobs {
		total += b.size
	}
	if progress != nil {
		progress(0, total)
	}
	var blobs, skipped, sent, handled atomic.Int64
	var errOnce sync.Once
	var firstErr error
	work := make(chan blob)
	var wg sync.WaitGroup
	for range max(1, min(c.Parallel, len(jobs))) {
		wg.Go(func() {
			for b := range work {
				up, err := c.pushBlob(ctx, dir, b)
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel(err) })
					continue
				}
				if up {
					blobs.Add(1)
					sent.Add(b.size)
				} else {
					skipped.Add(1)
				}
				if done := handled.Add(b.size); progress != nil {
					progress(done, total)
				}
			}
		})
	}
	for _, b := range jobs {
		if ctx.Err() != nil {
			break
		}
		work <- b
	}
	close(work)
	wg.Wait()
	t.Blobs, t.Skipped, t.Bytes = int(blobs.Load()), int(skipped.Load()), sent.Load()
	if firstErr != nil {
		return t, firstErr
	}
	if err := context.Cause(ctx); err != nil {
		return t, err
	}
	err = c.putEntry(ctx, rec, body)
	if err != nil && t.Blobs > 0 {
		err = fmt.Errorf("%w; the server keeps what was sent before it (%s) with no record naming it, until its own clean-up", err, human.Count(t.Blobs, "blob"))
	}
	return t, err
}

// putEntry writes the action-cache entry of rec, whose JSON is body: first
// the blobs it names besides the result's files (the record, the Trees),
// then the ActionResult, so that a server that checks an entry's blobs
// (bazel-remote) finds every one.
func (c *Client) putEntry(ctx context.Context, rec *Record, body []byte) error {
	e := entryOf(rec, body)
	for _, b := range e.blobs {
		d := digestOf(b)
		if err := c.put(ctx, c.casURL(d.Hash), bytesOf(b), d.Size); err != nil {
			return err
		}
	}
	return c.put(ctx, c.acURL(rec.Key), bytesOf(e.result), int64(len(e.result)))
}

func bytesOf(b []byte) func() (io.Reader, error) {
	return func() (io.Reader, error) { return bytes.NewReader(b), nil }
}

// pushBlob uploads one blob (a file or a chunk of one) unless the server
// has it; up is false when it was skipped.
func (c *Client) pushBlob(ctx context.Context, dir string, b blob) (up bool, err error) {
	u := c.casURL(b.sha256)
	resp, err := c.request(ctx, http.MethodHead, u, nil, 0, nil)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK && resp.ContentLength == b.size {
		return false, nil
	}
	p := filepath.Join(dir, filepath.FromSlash(b.path))
	var h interface {
		io.Writer
		Sum([]byte) []byte
	}
	open := func() (io.Reader, error) {
		file, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		h = sha256.New()
		return &closingReader{r: io.TeeReader(io.NewSectionReader(file, b.off, b.size), h), c: file}, nil
	}
	if err := c.put(ctx, u, open, b.size); err != nil {
		return false, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != b.sha256 {
		return false, fmt.Errorf("%s changed while it was uploaded (SHA-256 now %s): the record is not pushed", p, human.Short(got))
	}
	return true, nil
}

// put sends body (opened anew for each attempt) with PUT, retrying server
// errors and dropped connections.
func (c *Client) put(ctx context.Context, u string, open func() (io.Reader, error), size int64) error {
	var lastErr error
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, time.Duration(attempt)*200*time.Millisecond); err != nil {
				return err
			}
		}
		body, err := open()
		if err != nil {
			return err
		}
		resp, err := c.request(ctx, http.MethodPut, u, body, size, nil)
		if cr, ok := body.(*closingReader); ok {
			cr.c.Close()
		}
		if err != nil {
			var ue *UnreachableError
			var slow *SlowError
			if errors.As(err, &ue) || errors.As(err, &slow) || ctx.Err() != nil {
				return err
			}
			lastErr = fmt.Errorf("PUT %s: %w", u, err)
			continue
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
			resp.Body.Close()
			return nil
		}
		err = statusError("PUT", u, resp)
		resp.Body.Close()
		if resp.StatusCode < 500 {
			return err
		}
		lastErr = err
	}
	return lastErr
}

type closingReader struct {
	r io.Reader
	c io.Closer
}

func (r *closingReader) Read(p []byte) (int, error) { return r.r.Read(p) }
