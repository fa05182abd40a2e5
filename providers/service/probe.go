package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

const (
	maxBody     = 1 << 20 // bytes of a response kiln reads
	excerptSize = 300     // bytes of a response shown in an error
)

// attempt makes one request (or TCP connect) and returns nil only when every
// expectation holds; the error says what it saw.
func (p probeConfig) attempt(ctx context.Context, client *http.Client) error {
	if p.url == "" {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", p.tcp)
		if err != nil {
			return fmt.Errorf("TCP connect to %s: %w", p.tcp, err)
		}
		return conn.Close()
	}
	req, err := http.NewRequestWithContext(ctx, p.method, p.url, strings.NewReader(p.body))
	if err != nil {
		return fmt.Errorf("%s %s: %w", p.method, p.url, err)
	}
	for k, v := range p.headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the method and URL
		}
		return fmt.Errorf("%s %s: %w", p.method, p.url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("%s %s: reading the response: %w", p.method, p.url, err)
	}
	if msg := p.mismatch(resp.StatusCode, body); msg != "" {
		return fmt.Errorf("%s %s: %s; response body %s", p.method, p.url, msg, excerpt(body))
	}
	return nil
}

// mismatch says which expectation a response fails, or "" when it meets all.
func (p probeConfig) mismatch(status int, body []byte) string {
	if status != p.status {
		return fmt.Sprintf("status %d, expected %d", status, p.status)
	}
	if p.contains != "" && !bytes.Contains(body, []byte(p.contains)) {
		return fmt.Sprintf("body does not contain %q", p.contains)
	}
	if len(p.json) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return fmt.Sprintf("response is not JSON (%v)", err)
	}
	paths := make([]string, 0, len(p.json))
	for path := range p.json {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		want := p.json[path]
		v, ok := jsonField(doc, path)
		if !ok {
			return fmt.Sprintf("field %q: expected %q, got no such field", path, want)
		}
		if got := jsonText(v); got != want {
			return fmt.Sprintf("field %q: expected %q, got %q", path, want, got)
		}
	}
	return ""
}

// jsonField follows a dot-separated path through objects and, by index,
// arrays.
func jsonField(doc any, path string) (any, bool) {
	cur := doc
	for _, part := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonText is a JSON value as the string a check compares: a string as
// itself, anything else in its JSON form (42, true, null, {"a":1}).
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// excerpt quotes the start of a response body for an error message.
func excerpt(body []byte) string {
	if len(body) > excerptSize {
		return strconv.Quote(string(body[:excerptSize])) + "..."
	}
	return strconv.Quote(string(body))
}
