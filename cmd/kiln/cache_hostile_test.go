package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/remotecache/nginxtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// cache-hostile MODE [ARGS] starts, in front of the cache cache-start
// started, a server on 127.0.0.1 that passes requests through to it except
// for what MODE changes, and sets HOSTILE_URL:
//
//	attrs                      every record it serves gains attributes kiln
//	                           never writes for a pulled result (kiln.digest_by
//	                           = kind, kiln.export.out, kiln.temp), served as
//	                           the JSON record under /ac/
//	slow PREFIX                bodies of GETs under PREFIX (/ac/, /cas/) come at
//	                           5 bytes a second
//	stall PREFIX               GETs under PREFIX answer 200 and then send nothing
//	huge                       every GET of a record answers an endless record,
//	                           well-formed JSON that never closes (files with
//	                           60 KiB paths)
//	status METHOD PREFIX CODE BODY
//	                           METHOD requests under PREFIX answer CODE with BODY
func init() {
	scaleOutCmds["cache-hostile"] = cmdCacheHostile
}

func cmdCacheHostile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: cache-hostile MODE [ARGS]")
	}
	target, err := url.Parse(cache(ts).URL)
	if err != nil {
		ts.Fatalf("%v", err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var h http.HandlerFunc
	switch mode := args[0]; {
	case mode == "attrs" && len(args) == 1:
		h = attrsHandler(cache(ts), proxy)
	case mode == "slow" && len(args) == 2:
		prefix := args[1]
		h = func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, prefix) {
				proxy.ServeHTTP(w, r)
				return
			}
			resp, err := http.Get(target.String() + r.URL.Path)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.Header().Set("Content-Length", resp.Header.Get("Content-Length"))
			w.WriteHeader(resp.StatusCode)
			b := make([]byte, 1)
			for {
				if _, err := io.ReadFull(resp.Body, b); err != nil {
					return
				}
				if _, err := w.Write(b); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
	case mode == "stall" && len(args) == 2:
		prefix := args[1]
		h = func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, prefix) {
				proxy.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Length", "1000000")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte("{"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	case mode == "huge" && len(args) == 1:
		h = hugeHandler(proxy)
	case mode == "status" && len(args) == 5:
		method, prefix, body := args[1], args[2], args[4]
		code, err := strconv.Atoi(args[3])
		if err != nil {
			ts.Fatalf("cache-hostile status: %q is not a status code", args[3])
		}
		h = func(w http.ResponseWriter, r *http.Request) {
			if r.Method != method || !strings.HasPrefix(r.URL.Path, prefix) {
				proxy.ServeHTTP(w, r)
				return
			}
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(code)
			if r.Method != http.MethodHead {
				io.WriteString(w, body)
			}
		}
	default:
		ts.Fatalf("usage: cache-hostile attrs | slow PREFIX | stall PREFIX | huge | status METHOD PREFIX CODE BODY")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("%v", err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv("HOSTILE_URL", "http://"+l.Addr().String())
}

// attrsHandler is cache-hostile attrs: it serves the record of srv itself
// under /ac/, as kiln wrote them before its entries were ActionResults
// (which kiln still reads), with attributes added; the rest through proxy.
func attrsHandler(srv *nginxtest.Server, proxy http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/ac/") {
			proxy.ServeHTTP(w, r)
			return
		}
		b, err := srv.Record(strings.TrimPrefix(r.URL.Path, "/ac/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		var rec map[string]any
		if err := json.Unmarshal(b, &rec); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		attrs, _ := rec["attrs"].(map[string]any)
		if attrs == nil {
			attrs = map[string]any{}
		}
		attrs["kiln.digest_by"] = "kind"
		attrs["kiln.export.out"] = `"/etc"`
		attrs["kiln.temp"] = "removed"
		attrs["kiln.pin.checksum"] = "sha256:0000"
		rec["attrs"] = attrs
		// The file list stays last, where kiln writes it.
		files, _ := json.Marshal(rec["files"])
		delete(rec, "files")
		b, _ = json.Marshal(rec)
		b = append(append(append(b[:len(b)-1], `,"files":`...), files...), '}')
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}
}

// hugeHandler is cache-hostile huge: every GET of a record answers an
// endless record; the rest goes through proxy.
func hugeHandler(proxy http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/ac/") {
			proxy.ServeHTTP(w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, `{"format":"kiln-cache-record/2","key":%q,"files":[`, strings.TrimPrefix(r.URL.Path, "/ac/"))
		long := strings.Repeat("p", 60<<10)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, `{"path":"%d%s","type":"d"},`, i, long); err != nil {
				return
			}
		}
	}
}
