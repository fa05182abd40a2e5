package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/nolink"
)

// request is one file to bring into a partial download.
type request struct {
	url     string
	headers map[string]string // sent as is; never logged
	secret  string            // a value that must not appear in errors
	limit   int64             // most bytes the file may have; 0: no limit
	stall   time.Duration
	label   string // names the file in log lines
}

var errStalled = errors.New("stalled")

// errRestart asks download to start the file over from byte 0.
var errRestart = errors.New("restart")

// download completes p with the body of r.url and returns its size. It
// resumes with a Range request when p holds bytes and the server answers 206
// for the same content, and starts over otherwise. Bytes received before an
// error stay in p for the next run, except when the file exceeds r.limit.
func (f *Fetch) download(ctx context.Context, b *kind.Build, p *partial, r request) (int64, error) {
	for range 2 {
		size, err := f.transfer(ctx, b, p, r)
		if !errors.Is(err, errRestart) {
			return size, err
		}
		p.discard()
	}
	return 0, fmt.Errorf("GET %s: the server answered every resume with an unusable range; the partial download was deleted, run again", r.url)
}

// transfer makes one request and appends its body to p.
func (f *Fetch) transfer(ctx context.Context, b *kind.Build, p *partial, r request) (int64, error) {
	have := int64(0)
	if fi, err := os.Stat(p.path); err == nil {
		have = fi.Size()
	}
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(r.stall, func() { cancel(errStalled) })
	defer stall.Stop()

	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, r.url, nil)
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", r.url, err)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	// The stored bytes are the file itself: no transparent gzip, so
	// Content-Length, max_bytes and progress count what is written.
	req.Header.Set("Accept-Encoding", "identity")
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
		if v := p.savedValidator(); v != "" {
			req.Header.Set("If-Range", v)
		}
	}
	resp, err := f.httpClient().Do(req)
	if err != nil {
		return 0, transferError(reqCtx, r, have, err)
	}
	defer resp.Body.Close()

	total := int64(-1)
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			fmt.Fprintf(b.Log, "%s: the server answered the resume at byte %d with range %q; starting over\n", r.label, have, resp.Header.Get("Content-Range"))
			return 0, errRestart
		}
		total = size
		fmt.Fprintf(b.Log, "%s: resuming at %s\n", r.label, human.Bytes(have))
	case resp.StatusCode == http.StatusOK:
		if have > 0 {
			fmt.Fprintf(b.Log, "%s: the server does not resume this download (no 206 answer to a Range request); starting over\n", r.label)
		}
		have = 0
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		total = resp.ContentLength
		if err := p.saveValidator(validatorOf(resp)); err != nil {
			return 0, fmt.Errorf("record the validator of the partial download of %s: %w", r.url, err)
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		if _, size, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && size == have {
			return have, nil // complete: an earlier run stopped after the last byte
		}
		return 0, errRestart
	default:
		return 0, statusError(r, resp)
	}
	if r.limit > 0 && total > r.limit {
		p.discard()
		return 0, limitError(r, total)
	}

	out, err := nolink.OpenFile(p.path, flags, 0o644)
	if err != nil {
		return 0, fmt.Errorf("open the partial download %s: %w", p.path, err)
	}
	m := newMeter(f, b.Log, b.Addr.String(), r.label)
	m.begin(have, total)
	done, err := copyBody(out, resp.Body, have, r, m, func() { stall.Reset(r.stall) })
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write the partial download %s: %w", p.path, cerr)
	}
	if errors.Is(err, errLimit) {
		p.discard()
		return 0, limitError(r, done)
	}
	if err != nil {
		return 0, transferError(reqCtx, r, done, err)
	}
	if total >= 0 && done != total {
		return 0, fmt.Errorf("GET %s: the body ended after %d of %d bytes; run again to resume", r.url, done, total)
	}
	m.finish()
	return done, nil
}

var errLimit = errors.New("limit exceeded")

// copyBody appends body to out, counting from done, and returns the new
// count. alive is called whenever bytes arrive.
func copyBody(out io.Writer, body io.Reader, done int64, r request, m *meter, alive func()) (int64, error) {
	buf := make([]byte, 256<<10)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			alive()
			if r.limit > 0 && done+int64(n) > r.limit {
				return done + int64(n), errLimit
			}
			if _, err := out.Write(buf[:n]); err != nil {
				return done, err
			}
			done += int64(n)
			m.add(n)
		}
		if rerr == io.EOF {
			return done, nil
		}
		if rerr != nil {
			return done, rerr
		}
	}
}

// transferError explains a failed request or body read.
func transferError(reqCtx context.Context, r request, done int64, err error) error {
	if errors.Is(context.Cause(reqCtx), errStalled) {
		return fmt.Errorf("GET %s stalled: no data arrived for %s (stall_timeout); %s are kept and the next run resumes — raise stall_timeout for a slow server", r.url, r.stall, human.Bytes(done))
	}
	if cause := context.Cause(reqCtx); cause != nil {
		return fmt.Errorf("GET %s interrupted after %s: %w", r.url, human.Bytes(done), cause)
	}
	if r.secret != "" && strings.Contains(err.Error(), r.secret) {
		err = errors.New(redact(err.Error(), r.secret))
	}
	return fmt.Errorf("GET %s failed after %s (the bytes received are kept; run again to resume): %w", r.url, human.Bytes(done), err)
}

func limitError(r request, size int64) error {
	return fmt.Errorf("GET %s: the file is larger than max_bytes = %d (at least %d bytes); raise max_bytes if the file is right", r.url, r.limit, size)
}

func statusError(r request, resp *http.Response) error {
	msg := ""
	if m := resp.Header.Get("X-Error-Message"); m != "" {
		msg = " (" + redact(m, r.secret) + ")"
	}
	hint := "check the URL"
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = "check the URL and the credentials"
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		hint = "the server is busy; run again later"
	}
	return fmt.Errorf("GET %s: server answered %s%s; %s", r.url, resp.Status, msg, hint)
}

// validatorOf is the response's strong ETag, else its Last-Modified date:
// the value an If-Range header accepts.
func validatorOf(resp *http.Response) string {
	if et := resp.Header.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
		return et
	}
	return resp.Header.Get("Last-Modified")
}

// parseContentRange reads "bytes START-END/SIZE" or "bytes */SIZE". size
// is -1 when the server writes "*".
func parseContentRange(h string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(h, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	size = -1
	if sz != "*" {
		n, err := strconv.ParseInt(sz, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		size = n
	}
	if rng == "*" {
		return -1, size, true
	}
	first, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return start, size, true
}

// redact removes a secret from text.
func redact(text, secret string) string {
	if secret == "" {
		return text
	}
	return strings.ReplaceAll(text, secret, "[redacted]")
}
