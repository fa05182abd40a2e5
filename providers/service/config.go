package service

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// config is a service block decoded into Go values, with defaults applied.
type config struct {
	command []string // argv; the string form is ["/bin/sh", "-c", text]
	dir     string   // absolute working folder
	env     map[string]string
	url     string
	port    int
	ready   *probeConfig // nil: ready once started
	checks  []probeConfig
	stop    stopConfig
}

// probeConfig is one ready or check block.
type probeConfig struct {
	url      string // "" with tcp set: a TCP connect
	tcp      string // host:port for a TCP probe
	method   string
	body     string
	headers  map[string]string
	status   int
	contains string
	json     map[string]string
	interval time.Duration
	timeout  time.Duration
}

// stopConfig is the stop block.
type stopConfig struct {
	signal  syscall.Signal
	command []string
	grace   time.Duration
}

const (
	defaultInterval     = 250 * time.Millisecond
	defaultReadyTimeout = 60 * time.Second
	defaultCheckTimeout = 30 * time.Second
	defaultStopGrace    = 10 * time.Second
)

// decodeConfig reads the decoded block value. root resolves a relative dir;
// outDir is the default working folder.
func decodeConfig(v cty.Value, root, outDir string) (*config, error) {
	if v.IsNull() || !v.IsWhollyKnown() || !v.Type().IsObjectType() {
		return nil, fmt.Errorf("the service configuration is not fully known yet")
	}
	c := &config{dir: outDir}
	var err error
	if c.command, err = commandValue(v.GetAttr("command"), "command"); err != nil {
		return nil, err
	}
	if len(c.command) == 0 {
		return nil, fmt.Errorf("command is empty: give a list of program and arguments, or a shell command string")
	}
	r := attr.Read(v)
	if d := r.String("dir"); d != "" {
		c.dir = d
		if !filepath.IsAbs(d) {
			c.dir = filepath.Join(root, d)
		}
	}
	c.env = r.StringMap("env")
	c.url = r.String("url")
	c.port = r.Int("port")
	if err := r.Err(); err != nil {
		return nil, err
	}
	if c.port < 0 || c.port > 65535 {
		return nil, fmt.Errorf("port %d is out of range: use 1-65535", c.port)
	}
	if c.ready, err = readyConfig(v.GetAttr("ready"), c); err != nil {
		return nil, err
	}
	checks := v.GetAttr("check")
	for i, it := 0, checks.ElementIterator(); it.Next(); i++ {
		_, b := it.Element()
		p, err := probeValue(b, defaultCheckTimeout)
		if err != nil {
			return nil, fmt.Errorf("check %d: %w", i+1, err)
		}
		if p.url == "" {
			return nil, fmt.Errorf("check %d: url is required", i+1)
		}
		c.checks = append(c.checks, p)
	}
	if c.stop, err = stopValue(v.GetAttr("stop")); err != nil {
		return nil, err
	}
	return c, nil
}

// readyConfig decodes the ready block, or makes the TCP probe used without one.
func readyConfig(b cty.Value, c *config) (*probeConfig, error) {
	if b.IsNull() {
		if c.port == 0 {
			return nil, nil
		}
		return &probeConfig{tcp: c.tcpAddr(), interval: defaultInterval, timeout: defaultReadyTimeout}, nil
	}
	p, err := probeValue(b, defaultReadyTimeout)
	if err != nil {
		return nil, fmt.Errorf("ready: %w", err)
	}
	if p.url == "" {
		if c.port == 0 {
			return nil, fmt.Errorf("ready: give a url to probe, or set port for a TCP probe")
		}
		p.tcp = c.tcpAddr()
	}
	return &p, nil
}

// tcpAddr is where a TCP readiness probe connects: port on url's host.
func (c *config) tcpAddr() string {
	host := "127.0.0.1"
	if u, err := url.Parse(c.url); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return fmt.Sprintf("%s:%d", bracketIPv6(host), c.port)
}

func bracketIPv6(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}

func probeValue(b cty.Value, timeout time.Duration) (probeConfig, error) {
	r := attr.Read(b)
	p := probeConfig{
		url:      r.String("url"),
		method:   strings.ToUpper(r.String("method")),
		body:     r.String("body"),
		headers:  r.StringMap("headers"),
		contains: r.String("contains"),
		json:     r.StringMap("json"),
		status:   r.Int("status"),
		interval: r.Duration("interval", defaultInterval),
		timeout:  r.Duration("timeout", timeout),
	}
	if p.method == "" {
		p.method = "GET"
	}
	if p.status == 0 {
		p.status = 200
	}
	return p, r.Err()
}

func stopValue(b cty.Value) (stopConfig, error) {
	s := stopConfig{signal: syscall.SIGTERM, grace: defaultStopGrace}
	if b.IsNull() {
		return s, nil
	}
	r := attr.ReadIn(b, "stop: ")
	name := r.String("signal")
	s.grace = r.Duration("grace", s.grace)
	if err := r.Err(); err != nil {
		return s, err
	}
	var err error
	if name != "" {
		if s.signal, err = parseSignal(name); err != nil {
			return s, fmt.Errorf("stop: %w", err)
		}
	}
	if s.command, err = commandValue(b.GetAttr("command"), "stop.command"); err != nil {
		return s, err
	}
	return s, nil
}

// environ is base with the configured variables set on top, in a stable order.
func environ(base []string, extra map[string]string) []string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := extra[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

// configHash is the SHA-256 of the canonical JSON encoding of the block's
// value; it is the service's digest and tells restarts apart from changes.
func configHash(v cty.Value) (string, error) {
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return "", fmt.Errorf("encoding the service configuration: %w", err)
	}
	return hash.Bytes(b).String(), nil
}
