package remotecache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Servers on 127.0.0.1 that misbehave on purpose: what kiln must survive
// from whoever runs, or can write to, the cache it pulls from.

// trickle writes b two bytes at a time, every gap, until the client
// goes.
func trickle(w http.ResponseWriter, r *http.Request, b []byte, gap time.Duration) {
	trickleBy(w, r, b, 2, gap)
}

func trickleBy(w http.ResponseWriter, r *http.Request, b []byte, by int, gap time.Duration) {
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(http.StatusOK)
	for len(b) > 0 {
		n := min(by, len(b))
		if _, err := w.Write(b[:n]); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		b = b[n:]
		select {
		case <-r.Context().Done():
			return
		case <-time.After(gap):
		}
	}
}

func hostile(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	c := newClient(t, s.URL)
	c.Limits = Limits{Stall: 300 * time.Millisecond, MinRate: 1000}
	return c
}

func slowError(t *testing.T, err error, want string) {
	t.Helper()
	var slow *SlowError
	if !errors.As(err, &slow) {
		t.Fatalf("err = %v (%T), want a *SlowError", err, err)
	}
	if !strings.Contains(slow.Error(), want) {
		t.Errorf("err = %v, want it to say %q", slow, want)
	}
}

func validRecord(t *testing.T) ([]byte, *Record, string) {
	t.Helper()
	dir := tree(t, map[string]string{"a.bin": strings.Repeat("x", 20000)})
	rec := recordOf(t, key, dir)
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b, rec, dir
}

func TestSlowRecordIsCut(t *testing.T) {
	body, _, _ := validRecord(t)
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) { trickle(w, r, body, 50*time.Millisecond) })
	start := time.Now()
	_, err := c.Lookup(context.Background(), key)
	slowError(t, err, "below min_rate")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cut after %s, want about one stall_timeout (300ms)", d)
	}
}

// A record sent just above min_rate must still arrive within twice
// stall_timeout.
func TestRecordDeadline(t *testing.T) {
	body, _, _ := validRecord(t)
	body = append(append([]byte("{"), bytes.Repeat([]byte(" "), 4000)...), body[1:]...)
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) { trickleBy(w, r, body, 40, 10*time.Millisecond) })
	_, err := c.Lookup(context.Background(), key)
	slowError(t, err, "did not arrive within 600ms (twice stall_timeout)")
}

func TestStalledRecordIsCut(t *testing.T) {
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"format":`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	_, err := c.Summary(context.Background(), key)
	slowError(t, err, "no data for 300ms (stall_timeout)")
}

func TestSlowBlobIsCutNotRetried(t *testing.T) {
	_, rec, _ := validRecord(t)
	var mu sync.Mutex
	gets := 0
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gets++
		mu.Unlock()
		trickle(w, r, bytes.Repeat([]byte("x"), 20000), 50*time.Millisecond)
	})
	_, err := c.Fetch(context.Background(), rec, t.TempDir(), nil)
	slowError(t, err, "below min_rate")
	if gets != 1 {
		t.Errorf("%d GETs, want 1: a server that slow is not asked again", gets)
	}
}

func TestSlowUploadIsCut(t *testing.T) {
	dir := tree(t, map[string]string{"a.bin": strings.Repeat("y", 8<<20)})
	rec := recordOf(t, key, dir)
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			http.NotFound(w, r)
			return
		}
		// Reads the upload a few bytes at a time, for a while (what the
		// kernel buffered keeps it reading after kiln went).
		b := make([]byte, 2)
		give := time.After(2 * time.Second)
		for {
			if _, err := r.Body.Read(b); err != nil {
				return
			}
			select {
			case <-give:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	start := time.Now()
	_, err := c.Push(context.Background(), dir, rec, nil)
	var slow *SlowError
	if !errors.As(err, &slow) {
		t.Fatalf("err = %v, want a *SlowError", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cut after %s", d)
	}
}

// endless answers every record with well-formed JSON that never ends: a
// string that goes on, or files that go on.
func endless(files bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		if files {
			fmt.Fprintf(w, `{"format":%q,"key":%q,"files":[`, Format, key)
			entry := []byte(strings.Repeat(`{"path":"a","type":"d"},`, 2000))
			for {
				if _, err := w.Write(entry); err != nil {
					return
				}
			}
		}
		fmt.Fprintf(w, `{"format":%q,"key":%q,"attrs":{"x":"`, Format, key)
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

func TestHugeRecordIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files bool
		want  error
	}{
		{"long string", false, errLongString},
		{"endless files", true, errTooManyFiles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := hostile(t, endless(tc.files))
			c.Limits.Stall = 10 * time.Second // the size limit, not the clock, must stop it on a loaded machine
			_, err := c.Lookup(context.Background(), key)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), "GET ") {
				t.Errorf("err = %v, want it to name the request", err)
			}
		})
	}
}

// TestHugeRecordsMemory: eight lookups at once of endless records (as a
// plan of eight nodes asks) hold well under 100 MB of heap at any moment,
// whether the record is one endless string or endless files, kept
// (Lookup) or read past (Summary).
func TestHugeRecordsMemory(t *testing.T) {
	for _, files := range []bool{false, true} {
		for _, summary := range []bool{false, true} {
			t.Run(fmt.Sprintf("files=%v,summary=%v", files, summary), func(t *testing.T) {
				c := hostile(t, endless(files))
				c.Limits = DefaultLimits
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				stop := make(chan struct{})
				peak := make(chan uint64)
				go func() {
					var most uint64
					var m runtime.MemStats
					for {
						runtime.ReadMemStats(&m)
						most = max(most, m.HeapAlloc)
						select {
						case <-stop:
							peak <- most
							return
						case <-time.After(2 * time.Millisecond):
						}
					}
				}()
				var wg sync.WaitGroup
				for range 8 {
					wg.Go(func() {
						var err error
						if summary {
							_, err = c.Summary(context.Background(), key)
						} else {
							_, err = c.Lookup(context.Background(), key)
						}
						// A summary stops where the files start, so it
						// may take a record whose list never ends.
						if err == nil && !(summary && files) {
							t.Error("an endless record was accepted")
						}
					})
				}
				wg.Wait()
				close(stop)
				most := <-peak
				grew := int64(most) - int64(base.HeapAlloc)
				t.Logf("8 lookups: heap at most %d MiB above where it was", grew>>20)
				if grew > 100<<20 {
					t.Errorf("8 lookups held %d MiB of heap, want under 100", grew>>20)
				}
			})
		}
	}
}

func TestLongRecordIsRefused(t *testing.T) {
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"format":%q,"key":%q,"files":[`, Format, key)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, `{"path":"%d%s","type":"d"},`, i, strings.Repeat("p", 60<<10)); err != nil {
				return
			}
		}
	})
	c.Limits.Stall = 10 * time.Second // the size limit, not the clock, must stop it on a loaded machine
	_, err := c.Lookup(context.Background(), key)
	if !errors.Is(err, errTooLarge) {
		t.Fatalf("err = %v, want %v", err, errTooLarge)
	}
}

func TestSummarySkipsFiles(t *testing.T) {
	body, _, _ := validRecord(t)
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write(body) })
	sum, err := c.Summary(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != nil || sum.Digest == "" {
		t.Errorf("summary: %d files, digest %q; want none and the digest", len(sum.Files), sum.Digest)
	}
	full, err := c.Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Files) != 1 || full.Files[0].Path != "a.bin" {
		t.Errorf("lookup files = %+v", full.Files)
	}
}

func TestErrorBodies(t *testing.T) {
	const nginx403 = "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n"
	for _, tc := range []struct {
		name string
		code int
		body string
		want string
	}{
		{"bazel-remote", 400, "proto: cannot parse invalid wire-format data\n", "400 Bad Request: proto: cannot parse invalid wire-format data (bazel-remote found the action-cache entry kiln wrote not a valid REAPI ActionResult"},
		{"status repeated", 401, "401 Unauthorized\n", "401 Unauthorized (check KILN_CACHE_TOKEN"},
		{"go's text", 401, "Unauthorized\n", "401 Unauthorized (check KILN_CACHE_TOKEN"},
		{"nginx page", 403, nginx403, "403 Forbidden (check KILN_CACHE_TOKEN"},
		{"long", 400, strings.Repeat("why ", 1000), "400 Bad Request: why why"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.WriteHeader(tc.code)
				io.WriteString(w, tc.body)
			})
			err := c.put(context.Background(), c.acURL(key), func() (io.Reader, error) { return strings.NewReader("{}"), nil }, 2)
			var se *StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *StatusError", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("err = %q, want it to hold %q", msg, tc.want)
			}
			if strings.Count(msg, http.StatusText(tc.code)) != 1 {
				t.Errorf("err = %q says %q more than once", msg, http.StatusText(tc.code))
			}
			if len(msg) > 1300 {
				t.Errorf("err is %d bytes, want the body cut at about 1 KiB", len(msg))
			}
		})
	}
}
