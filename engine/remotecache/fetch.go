package remotecache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// CorruptError says a blob the server sent does not match the record: a
// different SHA-256, or more or fewer bytes than recorded.
type CorruptError struct {
	Path   string // the file of the record
	Digest string // the blob asked for
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("blob %s (file %s) is corrupt on the cache server: %s", e.Digest, e.Path, e.Reason)
}

// Transfer counts what a Fetch or Push moved.
type Transfer struct {
	Files   int   // regular files in the tree
	Blobs   int   // blobs downloaded or uploaded
	Skipped int   // uploads the server already had (Push)
	Bytes   int64 // bytes of blob content moved
}

// Fetch writes the tree of rec under dir, which must exist and be empty.
// Each file is streamed to disk while hashed, and checked against its
// recorded size and SHA-256. On error dir holds a partial tree that the
// caller removes; it must never be used. progress, when set, is called
// with the bytes received so far, from several goroutines at once.
func (c *Client) Fetch(ctx context.Context, rec *Record, dir string, progress func(done int64)) (Transfer, error) {
	var t Transfer
	if err := rec.Check(rec.Key); err != nil {
		return t, fmt.Errorf("the cache's record of %s is invalid: %w", rec.Key, err)
	}
	entries, _ := rec.Entries() // checked above
	// Folders first, in path order; then the files, one download per
	// distinct blob; then copies of repeated blobs; symlinks last, so no
	// write ever goes through one.
	first := map[string]int{} // blob digest -> the file that downloads it
	var jobs, copies, links []int
	for i, e := range entries {
		p := filepath.Join(dir, filepath.FromSlash(e.Path))
		switch e.Kind {
		case 'd':
			if err := os.Mkdir(p, 0o755); err != nil {
				return t, err
			}
		case 'l':
			links = append(links, i)
		case 'f':
			t.Files++
			d := e.Digest.String()
			if _, ok := first[d]; ok {
				copies = append(copies, i)
				continue
			}
			first[d] = i
			jobs = append(jobs, i)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var done atomic.Int64
	var blobs atomic.Int64
	work := make(chan int)
	var wg sync.WaitGroup
	var errOnce sync.Once
	var firstErr error
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel(err) })
	}
	for range max(1, min(c.Parallel, len(jobs))) {
		wg.Go(func() {
			buf := make([]byte, 256<<10)
			for i := range work {
				e := entries[i]
				f := rec.Files[i]
				_, err := c.fetchFile(ctx, f, filepath.Join(dir, filepath.FromSlash(e.Path)), buf, func(delta int64) {
					d := done.Add(delta)
					if progress != nil {
						progress(d)
					}
				})
				if err != nil {
					fail(err)
					continue
				}
				if e.Size > 0 {
					blobs.Add(int64(len(f.blobs())))
				}
			}
		})
	}
	for _, i := range jobs {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return t, firstErr
	}
	if err := context.Cause(ctx); err != nil {
		return t, err
	}
	for _, i := range copies {
		src := filepath.Join(dir, filepath.FromSlash(entries[first[entries[i].Digest.String()]].Path))
		if err := copyFile(src, filepath.Join(dir, filepath.FromSlash(entries[i].Path)), entries[i].Exec); err != nil {
			return t, err
		}
	}
	for _, i := range links {
		if err := os.Symlink(entries[i].Target, filepath.Join(dir, filepath.FromSlash(entries[i].Path))); err != nil {
			return t, err
		}
	}
	t.Blobs = int(blobs.Load())
	t.Bytes = done.Load()
	return t, nil
}

// fetchFile creates the file at p and downloads its blobs into it.
func (c *Client) fetchFile(ctx context.Context, f File, p string, buf []byte, progress func(int64)) (int64, error) {
	mode := os.FileMode(0o644)
	if f.Exec {
		mode = 0o755
	}
	out, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, b := range f.blobs() {
		got, err := c.download(ctx, b, out, buf, progress)
		n += got
		if err != nil {
			out.Close()
			return n, err
		}
	}
	if err := out.Close(); err != nil {
		return n, err
	}
	return n, os.Chmod(p, mode) // exactly, whatever the umask
}

// download streams blob f into out at its offset (where out stands),
// resuming after a dropped connection, and checks its size and SHA-256.
func (c *Client) download(ctx context.Context, f blob, out *os.File, buf []byte, progress func(int64)) (int64, error) {
	h := sha256.New()
	if f.size == 0 {
		return 0, c.checkSum(f, h, 0)
	}
	u := c.casURL(f.sha256)
	var got int64
	var lastErr error
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, time.Duration(attempt)*200*time.Millisecond); err != nil {
				return got, err
			}
		}
		var header http.Header
		if got > 0 {
			header = http.Header{"Range": {"bytes=" + strconv.FormatInt(got, 10) + "-"}}
		}
		resp, err := c.request(ctx, http.MethodGet, u, nil, 0, header)
		if err != nil {
			var ue *UnreachableError
			var slow *SlowError
			if ctx.Err() != nil || errors.As(err, &slow) || errors.As(err, &ue) && attempt == c.Retries {
				return got, err
			}
			lastErr = err
			continue
		}
		switch {
		case resp.StatusCode == http.StatusOK && got > 0:
			// The server ignored the range: start the file over.
			if err := restart(out, f.off, h); err != nil {
				resp.Body.Close()
				return got, err
			}
			progress(-got)
			got = 0
		case resp.StatusCode == http.StatusPartialContent && got > 0:
			if !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes "+strconv.FormatInt(got, 10)+"-") {
				resp.Body.Close()
				if err := restart(out, f.off, h); err != nil {
					return got, err
				}
				progress(-got)
				got = 0
				lastErr = fmt.Errorf("GET %s: unexpected Content-Range %q", u, resp.Header.Get("Content-Range"))
				continue
			}
		case resp.StatusCode == http.StatusOK:
		case resp.StatusCode == http.StatusNotFound:
			resp.Body.Close()
			return got, &CorruptError{Path: f.path, Digest: f.sha256, Reason: "missing (404), though the record names it"}
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
			lastErr = statusError("GET", u, resp)
			resp.Body.Close()
			if resp.StatusCode == http.StatusRequestedRangeNotSatisfiable {
				if err := restart(out, f.off, h); err != nil {
					return got, err
				}
				progress(-got)
				got = 0
			}
			continue
		default:
			err := statusError("GET", u, resp)
			resp.Body.Close()
			return got, err
		}
		// One byte more than wanted is read, to tell a blob that is too long.
		n, err := io.CopyBuffer(io.MultiWriter(out, h, progressWriter(progress)), io.LimitReader(resp.Body, f.size-got+1), buf)
		resp.Body.Close()
		got += n
		if got > f.size {
			return got, &CorruptError{Path: f.path, Digest: f.sha256, Reason: fmt.Sprintf("longer than the recorded %d bytes", f.size)}
		}
		if err != nil {
			if ctx.Err() != nil {
				return got, context.Cause(ctx)
			}
			var slow *SlowError
			if errors.As(err, &slow) {
				return got, err
			}
			lastErr = fmt.Errorf("GET %s: connection lost after %d of %d bytes: %w", u, got, f.size, err)
			continue // resumed from got
		}
		if got < f.size {
			return got, &CorruptError{Path: f.path, Digest: f.sha256, Reason: fmt.Sprintf("truncated: %d of %d bytes", got, f.size)}
		}
		return got, c.checkSum(f, h, got)
	}
	return got, fmt.Errorf("downloading %s: gave up after %d attempts: %w", f.path, c.Retries+1, lastErr)
}

func (c *Client) checkSum(f blob, h interface{ Sum([]byte) []byte }, n int64) error {
	if got := hex.EncodeToString(h.Sum(nil)); got != f.sha256 {
		return &CorruptError{Path: f.path, Digest: f.sha256, Reason: fmt.Sprintf("its %d bytes have SHA-256 %s", n, got[:12])}
	}
	return nil
}

func restart(out *os.File, off int64, h interface{ Reset() }) error {
	if err := out.Truncate(off); err != nil {
		return err
	}
	if _, err := out.Seek(off, io.SeekStart); err != nil {
		return err
	}
	h.Reset()
	return nil
}

type progressWriter func(int64)

func (p progressWriter) Write(b []byte) (int, error) {
	p(int64(len(b)))
	return len(b), nil
}

func copyFile(src, dst string, exec bool) error {
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
