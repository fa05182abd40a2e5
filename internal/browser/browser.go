package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
)

// Browser is a running headless Chromium.
type Browser struct {
	cmd     *exec.Cmd
	send    *os.File // the browser's fd 3
	profile string

	mu      sync.Mutex
	next    int
	pending map[int]chan reply
	pages   map[string]*Page // by session id
	readErr error
	done    chan struct{}
	stderr  *tailBuffer
}

// reply is the answer to one command.
type reply struct {
	Result json.RawMessage
	Err    error
}

// message is any message the browser writes: a reply (ID set) or an event.
type message struct {
	ID        int             `json:"id"`
	Result    json.RawMessage `json:"result"`
	Error     *protocolError  `json:"error"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
}

type protocolError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Find returns the path of the Chromium binary to use.
func Find() (string, error) {
	if p := os.Getenv("KILN_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found: install the Debian package chromium (apt-get install -y chromium), or set KILN_CHROMIUM to the browser's path")
}

// Start launches a headless Chromium with a fresh profile under tmp.
func Start(tmp string) (*Browser, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp(tmp, "chromium-profile-")
	if err != nil {
		return nil, err
	}
	// fd 3: commands to the browser; fd 4: its replies and events.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	cmd := exec.Command(bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
		"--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	b := &Browser{cmd: cmd, send: cmdW, profile: profile, pending: map[int]chan reply{}, pages: map[string]*Page{}, done: make(chan struct{}), stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		cmdR.Close()
		cmdW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	cmdR.Close()
	outW.Close()
	go b.read(outR)
	return b, nil
}

// read dispatches the browser's messages until the pipe closes.
func (b *Browser) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		raw, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.dispatch(&m)
	}
	b.mu.Lock()
	b.readErr = fmt.Errorf("the browser closed its DevTools pipe (%v); its last output:\n%s", err, b.stderr.String())
	for id, ch := range b.pending {
		ch <- reply{Err: b.readErr}
		delete(b.pending, id)
	}
	b.mu.Unlock()
	close(b.done)
}

func (b *Browser) dispatch(m *message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.ID != 0 {
		ch, ok := b.pending[m.ID]
		if !ok {
			return
		}
		delete(b.pending, m.ID)
		var err error
		if m.Error != nil {
			err = fmt.Errorf("DevTools error %d: %s", m.Error.Code, m.Error.Message)
		}
		ch <- reply{Result: m.Result, Err: err}
		return
	}
	if p := b.pages[m.SessionID]; p != nil {
		p.event(m.Method, m.Params)
	}
}

// call sends one command (to a page's session when session is set) and
// waits for its reply.
func (b *Browser) call(ctx context.Context, session, method string, params any, result any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.readErr
	}
	b.next++
	id := b.next
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(body, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return fmt.Errorf("%s: %w", method, r.Err)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close ends the browser and removes its profile.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5e9)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.send.Close()
	select {
	case <-b.done:
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
	}
	_ = b.cmd.Wait()
	return os.RemoveAll(b.profile)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
