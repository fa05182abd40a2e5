package remotecache

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"

	"github.com/kilnbuild/kiln/engine/human"
)

// maxRecord bounds a record's size in bytes (maxFiles bounds its entries);
// a record is read as a stream and never held whole.
const maxRecord = 4 << 20

// Lookup returns the record of key, ErrNotFound when the cache has none, or
// an error. A record that does not check (Record.Check), that no key of
// c.Trusted signed, or whose ActionResult names other outputs than kiln
// writes for it, is an error too: the caller treats it as a miss and says
// why. SignedBy names the key that signed it. At most two records are read
// at once: their file lists, unlike everything else kiln reads from a
// cache, are kept.
func (c *Client) Lookup(ctx context.Context, key string) (*Record, error) {
	select {
	case c.reading <- struct{}{}:
		defer func() { <-c.reading }()
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	r, err := c.get(ctx, key, true)
	if err != nil {
		return nil, err
	}
	if err := r.Check(key); err != nil {
		return nil, fmt.Errorf("the cache's record of %s is invalid: %w", human.Short(key), err)
	}
	if r.entry != nil {
		if err := r.entry.agrees(r); err != nil {
			return nil, fmt.Errorf("the cache's record of %s is invalid: %w", human.Short(key), err)
		}
	}
	return r, nil
}

// Summary is Lookup without the file list: it reads the record only up to
// the list, which kiln writes last, so what it costs does not grow with
// the result. It is what a plan needs to say what it would fetch (digest,
// host, the key that signed it); the files are checked when the record is
// fetched.
func (c *Client) Summary(ctx context.Context, key string) (*Record, error) {
	r, err := c.get(ctx, key, false)
	if err != nil {
		return nil, err
	}
	if r.Format != Format || r.Key != key {
		return nil, fmt.Errorf("the cache's record of %s is invalid: format %q, key %s", human.Short(key), r.Format, human.Short(r.Key))
	}
	return r, nil
}

// trust verifies r's signature against c.Trusted, before its files are
// read; nil when c trusts any record.
func (c *Client) trust() func(*Record) error {
	if len(c.Trusted) == 0 {
		return nil
	}
	return func(r *Record) error {
		name, err := r.Verify(c.Trusted)
		if err != nil {
			return err
		}
		r.SignedBy = name
		return nil
	}
}

// get reads the action-cache entry of key: an ActionResult that names the
// record's blob, which is then read from the CAS, or (as kiln wrote
// before) the record itself, a JSON object.
func (c *Client) get(ctx context.Context, key string, files bool) (*Record, error) {
	u := c.acURL(key)
	if c.Limits.Stall > 0 {
		// A record is small: a server that sends one at just above
		// min_rate would still hold a node for minutes.
		limit := 2 * c.Limits.Stall
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, limit, &SlowError{What: "GET " + u, Reason: fmt.Sprintf("the record did not arrive within %s (twice stall_timeout)", limit)})
		defer cancel()
	}
	body, err := c.open(ctx, u, ErrNotFound)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	in := bufio.NewReader(body)
	if b, err := in.Peek(1); err == nil && b[0] == '{' {
		return c.decode(ctx, u, in, key, files)
	}
	ac, err := readActionResult(in)
	if err != nil {
		return nil, c.readError(ctx, u, err)
	}
	d, err := ac.recordDigest()
	if err != nil {
		return nil, c.readError(ctx, u, err)
	}
	u = c.casURL(d.Hash)
	blob, err := c.open(ctx, u, fmt.Errorf("GET %s: the record its ActionResult names is missing (404)", u))
	if err != nil {
		return nil, err
	}
	defer blob.Close()
	// One byte more than named tells a blob of that size from a longer one.
	h := &hashing{r: io.LimitReader(blob, d.Size+1), h: sha256.New()}
	r, err := c.decode(ctx, u, h, key, files)
	if err != nil {
		// A record that does not decode may be one the server damaged:
		// that is what to say when its bytes are not the ones named.
		var slow *SlowError
		var untrusted *UntrustedError
		if !errors.As(err, &slow) && !errors.As(err, &untrusted) && ctx.Err() == nil {
			if cerr := h.check(d); cerr != nil {
				return nil, cerr
			}
		}
		return nil, err
	}
	if files {
		if err := h.check(d); err != nil {
			return nil, c.readError(ctx, u, err)
		}
	}
	r.entry = ac
	return r, nil
}

// open GETs u; notFound is the error for a 404.
func (c *Client) open(ctx context.Context, u string, notFound error) (io.ReadCloser, error) {
	resp, err := c.request(ctx, http.MethodGet, u, nil, 0, nil)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusOK:
		return resp.Body, nil
	case http.StatusNotFound:
		resp.Body.Close()
		return nil, notFound
	default:
		defer resp.Body.Close()
		return nil, statusError("GET", u, resp)
	}
}

func (c *Client) decode(ctx context.Context, u string, in io.Reader, key string, files bool) (*Record, error) {
	r, err := readRecord(in, key, files, c.trust())
	if err != nil {
		return nil, c.readError(ctx, u, err)
	}
	return r, nil
}

// readError names the URL in an error of reading its body, unless the
// error says enough (a cut transfer, an untrusted record).
func (c *Client) readError(ctx context.Context, u string, err error) error {
	var slow *SlowError
	var untrusted *UntrustedError
	if errors.As(err, &slow) || errors.As(err, &untrusted) || ctx.Err() != nil {
		return err
	}
	return fmt.Errorf("GET %s: %w", u, err)
}

// readActionResult reads an ActionResult of at most maxActionResult bytes.
func readActionResult(in io.Reader) (*actionResult, error) {
	b, err := io.ReadAll(io.LimitReader(in, maxActionResult+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxActionResult {
		return nil, fmt.Errorf("the action-cache entry is larger than the %d KiB kiln reads of one", maxActionResult>>10)
	}
	return parseActionResult(b)
}

// hashing hashes and counts what is read through it.
type hashing struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashing) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// check reads what is left (no more than the digest's size allows) and
// compares the whole with d.
func (h *hashing) check(d digest) error {
	if _, err := io.Copy(io.Discard, io.LimitReader(h, d.Size-h.n+1)); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.h.Sum(nil)); h.n != d.Size || got != d.Hash {
		return &CorruptError{Path: recordPath, Digest: d.Hash, Reason: fmt.Sprintf("its %d bytes have SHA-256 %.12s, the ActionResult names %d bytes", h.n, got, d.Size)}
	}
	return nil
}
