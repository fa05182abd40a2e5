// Package nginxtest starts a real nginx that speaks the Bazel HTTP cache
// layout (GET, HEAD and WebDAV PUT under one root folder) on a free
// loopback port, for kiln's remote cache tests and benchmarks. It needs the
// nginx binary (Debian: apt-get install -y nginx-light); Start fails with
// that hint when it is missing, so a machine without it fails loudly
// instead of skipping.
package nginxtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Server is one running nginx.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	Root string // the folder it serves: Root/ac/KEY, Root/cas/SHA256
	Port int
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	opts Options
}

// Options tune a server.
type Options struct {
	// ReadOnly refuses PUT (403), like a cache that takes no uploads.
	ReadOnly bool
	detached bool
}

// Start starts nginx with its configuration, pid file, logs and root under
// dir (created if needed).
func Start(dir string) (*Server, error) { return StartWith(dir, Options{}) }

// StartDetached starts nginx to outlive this process (for scripts): its
// output goes to dir/nginx.out, and it is stopped by the pid in
// dir/nginx.pid.
func StartDetached(dir string) (*Server, error) { return StartWith(dir, Options{detached: true}) }

// StartWith is Start with options.
func StartWith(dir string, o Options) (*Server, error) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		for _, p := range []string{"/usr/sbin/nginx", "/sbin/nginx"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
				break
			}
		}
	}
	if err != nil {
		return nil, errors.New("nginx is not installed: apt-get install -y nginx-light (the remote cache tests need a real HTTP cache server)")
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	s := &Server{Root: filepath.Join(dir, "root"), dir: dir, opts: o}
	for _, d := range []string{s.Root, filepath.Join(dir, "body"), filepath.Join(dir, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var lastErr error
	for range 5 { // a port picked free can be taken before nginx binds it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s.Port = port
		s.URL = "http://127.0.0.1:" + strconv.Itoa(port)
		if err := os.WriteFile(s.confPath(), []byte(s.conf()), 0o644); err != nil {
			return nil, err
		}
		var out strings.Builder
		s.cmd = exec.Command(bin, "-c", s.confPath(), "-p", dir)
		s.cmd.Stdout, s.cmd.Stderr = &out, &out
		if o.detached {
			f, err := os.Create(filepath.Join(dir, "nginx.out"))
			if err != nil {
				return nil, err
			}
			defer f.Close()
			s.cmd.Stdout, s.cmd.Stderr = f, f
		}
		s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := s.cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting nginx: %w", err)
		}
		s.done = make(chan struct{})
		go func() { s.cmd.Wait(); close(s.done) }()
		if err := s.waitUp(); err != nil {
			err = fmt.Errorf("%w %s", err, strings.TrimSpace(out.String()))
			s.Stop()
			lastErr = err
			continue
		}
		return s, nil
	}
	return nil, lastErr
}

func (s *Server) confPath() string { return filepath.Join(s.dir, "nginx.conf") }

func (s *Server) pidPath() string { return filepath.Join(s.dir, "nginx.pid") }

func (s *Server) conf() string {
	readOnly := ""
	if s.opts.ReadOnly {
		readOnly = "      limit_except GET HEAD { deny all; }\n"
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // else the worker cannot write the root folder: PUT answers 500
	}
	return fmt.Sprintf(`%sworker_processes 2;
daemon off;
pid %s;
error_log %s;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %s;
  sendfile on;
  server {
    listen 127.0.0.1:%d;
    client_max_body_size 0;
    location / {
      root %s;
      dav_methods PUT;
      create_full_put_path on;
%s    }
  }
}
`, user, s.pidPath(), filepath.Join(s.dir, "error.log"), filepath.Join(s.dir, "body"), s.Port, s.Root, readOnly)
}

func (s *Server) waitUp() error {
	deadline := time.Now().Add(10 * time.Second)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return errors.New("nginx exited")
		default:
		}
		resp, err := client.Get(s.URL + "/ac/ping")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, _ := os.ReadFile(filepath.Join(s.dir, "error.log"))
	return fmt.Errorf("nginx did not answer on %s within 10s: %s", s.URL, strings.TrimSpace(string(b)))
}

// Stop ends nginx and its workers and waits until they exited. Stopping a
// stopped server does nothing.
func (s *Server) Stop() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
	return nil
}

// BlobPath is where the server keeps the blob with the given SHA-256.
func (s *Server) BlobPath(sha256 string) string { return filepath.Join(s.Root, "cas", sha256) }

// RecordPath is where the server keeps the record of key.
func (s *Server) RecordPath(key string) string { return filepath.Join(s.Root, "ac", key) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
