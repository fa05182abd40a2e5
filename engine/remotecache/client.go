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
	"strings"
	"time"
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
	}, nil
}

// URL is the server's base URL, for messages.
func (c *Client) URL() string { return c.base }

func (c *Client) acURL(key string) string     { return c.base + "/ac/" + key }
func (c *Client) casURL(digest string) string { return c.base + "/cas/" + digest }

// request sends one request; the caller closes the body of a nil-error
// response. A failure to connect is an *UnreachableError.
func (c *Client) request(ctx context.Context, method, u string, body io.Reader, size int64, header http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
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
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, &UnreachableError{URL: c.base, Err: op.Err}
		}
		return nil, err
	}
	return resp, nil
}

// statusError describes an unexpected response, with the start of its body.
func statusError(method, u string, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	msg := strings.TrimSpace(string(b))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	err := fmt.Errorf("%s %s: %s", method, u, resp.Status)
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		err = fmt.Errorf("%w (check KILN_CACHE_TOKEN or KILN_CACHE_USERNAME/KILN_CACHE_PASSWORD)", err)
	}
	if msg != "" && !strings.HasPrefix(msg, "<") {
		err = fmt.Errorf("%w: %s", err, msg)
	}
	return err
}

// maxRecord bounds a record's size: a manifest of about a million files.
const maxRecord = 256 << 20

// Lookup returns the record of key, ErrNotFound when the cache has none, or
// an error. A record that does not check (Record.Check) is an error too:
// the caller treats it as a miss and says why.
func (c *Client) Lookup(ctx context.Context, key string) (*Record, error) {
	u := c.acURL(key)
	resp, err := c.request(ctx, http.MethodGet, u, nil, 0, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, ErrNotFound
	default:
		return nil, statusError("GET", u, resp)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxRecord+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(b) > maxRecord {
		return nil, fmt.Errorf("GET %s: record larger than %d bytes", u, maxRecord)
	}
	r, err := decodeRecord(b)
	if err != nil {
		return nil, err
	}
	if err := r.Check(key); err != nil {
		return nil, fmt.Errorf("the cache's record of %s is invalid: %w", key, err)
	}
	return r, nil
}

// Has reports whether the cache holds a record for key (HEAD), for plans.
func (c *Client) Has(ctx context.Context, key string) (bool, error) {
	u := c.acURL(key)
	resp, err := c.request(ctx, http.MethodHead, u, nil, 0, nil)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return true, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, statusError("HEAD", u, resp)
}
