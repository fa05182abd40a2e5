package remotecache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// Auth holds the credentials sent with every request. The zero value sends
// none.
type Auth struct {
	Token    string // bearer token
	Username string // basic auth, when Token is empty
	Password string
}

// AuthFromEnv reads KILN_CACHE_TOKEN, or KILN_CACHE_USERNAME and
// KILN_CACHE_PASSWORD.
func AuthFromEnv() Auth {
	return Auth{
		Token:    os.Getenv("KILN_CACHE_TOKEN"),
		Username: os.Getenv("KILN_CACHE_USERNAME"),
		Password: os.Getenv("KILN_CACHE_PASSWORD"),
	}
}

// Client talks to one cache server.
type Client struct {
	base string // scheme://host[:port][/prefix], without a trailing slash
	auth Auth
	http *http.Client
	// Parallel bounds the blob transfers of one Fetch or Push.
	Parallel int
	// Retries is how many times one blob transfer is resumed or repeated
	// after a dropped connection or a server error.
	Retries int
	// Limits cut a transfer that moves too slowly (stall_timeout,
	// min_rate).
	Limits Limits
	// Trusted, when not empty, are the only keys whose records Lookup and
	// Summary accept (trusted_keys): an unsigned record, or one no key of
	// Trusted signed, is an *UntrustedError.
	Trusted []PublicKey
	// Signer, when set, signs every record Push writes.
	Signer *SigningKey

	reading chan struct{} // bounds the records Lookup reads at once
}

// ErrNotFound is returned by Lookup when the cache holds no record for a key.
var ErrNotFound = errors.New("not in the remote cache")

// UnreachableError says the server could not be reached at all.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("remote cache %s unreachable: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// New returns a client for the cache at rawURL (http or https). A URL with
// user information is refused: credentials come from the environment.
func New(rawURL string, auth Auth) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("cache url %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("cache url %q: want http://HOST[:PORT][/PATH] or https://HOST[:PORT][/PATH]", rawURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("cache url %s: credentials do not belong in the url, which kiln may print and keep; set KILN_CACHE_TOKEN, or KILN_CACHE_USERNAME and KILN_CACHE_PASSWORD", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("cache url %q: a query or fragment is not supported", rawURL)
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
	}
	return &Client{
		base:     strings.TrimSuffix(u.String(), "/"),
		auth:     auth,
		http:     &http.Client{Transport: tr},
		Parallel: 8,
		Retries:  3,
		Limits:   DefaultLimits,
		reading:  make(chan struct{}, 2),
	}, nil
}

// URL is the server's base URL, for messages.
func (c *Client) URL() string { return c.base }

func (c *Client) acURL(key string) string     { return c.base + "/ac/" + key }
func (c *Client) casURL(digest string) string { return c.base + "/cas/" + digest }

// request sends one request; the caller closes the body of a nil-error
// response. A failure to connect is an *UnreachableError; a body, sent or
// received, that moves slower than c.Limits allow is cut with a
// *SlowError.
func (c *Client) request(ctx context.Context, method, u string, body io.Reader, size int64, header http.Header) (*http.Response, error) {
	what := method + " " + u
	rctx, cancel := context.WithCancelCause(ctx)
	var up *meter
	if body != nil && size > 0 {
		up = newMeter(what, c.Limits, cancel)
		up.wait() // until the transport asks for the body
		body = &meteredBody{r: body, size: size, upload: true, m: up, ctx: rctx}
	}
	req, err := http.NewRequestWithContext(rctx, method, u, body)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	if body != nil {
		req.ContentLength = size
		if size == 0 {
			req.Body = http.NoBody
		}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	switch {
	case c.auth.Token != "":
		req.Header.Set("Authorization", "Bearer "+c.auth.Token)
	case c.auth.Username != "" || c.auth.Password != "":
		req.SetBasicAuth(c.auth.Username, c.auth.Password)
	}
	resp, err := c.http.Do(req)
	if up != nil {
		up.stop()
	}
	if err != nil {
		cause := context.Cause(rctx)
		cancel(nil)
		var slow *SlowError
		if errors.As(cause, &slow) {
			return nil, slow
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, &UnreachableError{URL: c.base, Err: op.Err}
		}
		return nil, err
	}
	down := newMeter(what, c.Limits, cancel)
	resp.Body = &meteredBody{r: resp.Body, c: resp.Body, m: down, ctx: rctx, done: func() { cancel(nil) }}
	return resp, nil
}

// StatusError is an answer kiln did not expect, with the start of what
// the server said.
type StatusError struct {
	Method, URL string
	Code        int
	Status      string // "401 Unauthorized"
	Body        string // the start of the answer's text, on one line
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: %s", e.Method, e.URL, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	switch {
	case e.Auth():
		msg += " (check KILN_CACHE_TOKEN or KILN_CACHE_USERNAME/KILN_CACHE_PASSWORD)"
	case e.Code == http.StatusBadRequest && strings.Contains(e.URL, "/ac/") && strings.Contains(e.Body, "proto"):
		msg += " (bazel-remote found the action-cache entry kiln wrote not a valid REAPI ActionResult, a bug of kiln's to report; started with --disable_http_ac_validation it stores entries as sent)"
	}
	return msg
}

// Auth reports whether the server asked for credentials or refused them.
func (e *StatusError) Auth() bool {
	return e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden
}

// maxErrorBody is how much of an unexpected answer kiln keeps.
const maxErrorBody = 1 << 10

// statusError describes an unexpected response, with the start of its
// body: HTML reduced to its text, what only repeats the status left out.
func statusError(method, u string, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return &StatusError{Method: method, URL: u, Code: resp.StatusCode, Status: resp.Status, Body: bodyText(b, resp.StatusCode, resp.Status)}
}

var (
	htmlTag = regexp.MustCompile(`(?s)<[^>]*>`)
	spaces  = regexp.MustCompile(`\s+`)
)

func bodyText(b []byte, code int, status string) string {
	s := strings.ToValidUTF8(string(b), "?")
	html := strings.HasPrefix(strings.TrimSpace(s), "<")
	if html {
		s = htmlTag.ReplaceAllString(s, " ")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	// What only repeats the status says nothing more: nginx's page says it
	// twice, and "Unauthorized" alone is Go's.
	for _, repeat := range []string{status, http.StatusText(code)} {
		if repeat == "" {
			continue
		}
		if html {
			s = strings.ReplaceAll(s, repeat, "")
		} else {
			s = strings.TrimPrefix(s, repeat)
		}
		s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), ":.-"))
	}
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	if html && !strings.Contains(s, " ") {
		return "" // what is left is the server's name
	}
	return s
}
