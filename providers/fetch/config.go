package fetch

import (
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

// config is a fetch block's decoded configuration.
type config struct {
	url          string
	checksum     string // "sha256:hex" as written or as locked, or ""
	locked       bool   // checksum comes from the lock file, not the block
	filename     string
	extract      bool
	maxBytes     int64 // 0: no limit
	stallTimeout time.Duration
	headers      map[string]string
	hf           *hfConfig
}

// hfConfig is a huggingface block.
type hfConfig struct {
	org, name string // repo = org/name
	revision  string // the 40-hex commit; "" until ref is resolved
	ref       string // a branch or tag to resolve, when revision is not pinned
	dataset   bool
	files     []string
	endpoint  string
	tokenEnv  string
}

func (h *hfConfig) repo() string { return h.org + "/" + h.name }

const defaultStallTimeout = 60 * time.Second

var (
	commitRE   = regexp.MustCompile(`^[0-9a-f]{40}$`)
	hubRefRE   = regexp.MustCompile(`^[A-Za-z0-9._][A-Za-z0-9._/-]*$`)
	repoPartRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

func decodeConfig(v cty.Value) (*config, error) {
	if v.IsNull() || !v.Type().IsObjectType() {
		return nil, errors.New("configuration is not an object; this is a bug in the engine")
	}
	if !v.IsWhollyKnown() {
		return nil, errors.New("configuration still holds unknown values at build time; this is a bug in the engine")
	}
	r := attr.Read(v)
	c := &config{
		url:          r.String("url"),
		checksum:     r.String("checksum"),
		filename:     r.String("filename"),
		extract:      r.Bool("extract"),
		stallTimeout: defaultStallTimeout,
		headers:      r.StringMap("headers"),
	}
	stall := r.String("stall_timeout")
	if c.checksum == "" {
		c.checksum = r.String(lockedChecksumAttr)
		c.locked = c.checksum != ""
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if c.headers == nil {
		c.headers = map[string]string{}
	}
	if mb := attr.Get(v, "max_bytes"); !mb.IsNull() {
		n, err := wholeNumber(mb.AsBigFloat())
		if err != nil {
			return nil, fmt.Errorf("max_bytes: %w", err)
		}
		c.maxBytes = n
	}
	if stall != "" {
		d, err := time.ParseDuration(stall)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("stall_timeout %q is not a positive duration; write it like \"60s\" or \"5m\"", stall)
		}
		c.stallTimeout = d
	}
	if hf := attr.Get(v, "huggingface"); !hf.IsNull() {
		if err := c.decodeHuggingFace(hf); err != nil {
			return nil, err
		}
		return c, nil
	}
	if err := c.checkPlain(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *config) checkPlain() error {
	if c.url == "" {
		return errors.New("set url (a download) or a huggingface block")
	}
	if err := checkHTTPURL("url", c.url); err != nil {
		return err
	}
	if c.checksum != "" {
		if _, err := parseChecksum(c.checksum); err != nil {
			return err
		}
	}
	if c.filename == "" {
		name, err := defaultFilename(c.url)
		if err != nil {
			return err
		}
		c.filename = name
	}
	if c.filename != path.Base(c.filename) || c.filename == "." || c.filename == ".." || strings.Contains(c.filename, "/") {
		return fmt.Errorf("filename %q must be a single file name without slashes", c.filename)
	}
	if c.extract {
		if _, err := archiveFormat(c.filename); err != nil {
			return err
		}
	}
	return nil
}

func (c *config) decodeHuggingFace(hf cty.Value) error {
	if c.url != "" || (c.checksum != "" && !c.locked) || c.filename != "" || c.extract {
		return errors.New("url, checksum, filename and extract apply to url downloads; a huggingface block is pinned by its revision — remove them or the huggingface block")
	}
	r := attr.ReadIn(hf, "huggingface ")
	h := &hfConfig{
		revision: r.String("revision"),
		endpoint: strings.TrimRight(r.String("endpoint"), "/"),
		tokenEnv: r.String("token_env"),
		files:    r.Strings("files"),
	}
	repo, hubKind := r.String("repo"), r.String("kind")
	if err := r.Err(); err != nil {
		return err
	}
	org, name, ok := strings.Cut(repo, "/")
	if !ok || !repoPartRE.MatchString(org) || !repoPartRE.MatchString(name) || strings.Contains(name, "..") || strings.Contains(org, "..") {
		return fmt.Errorf("huggingface repo %q must be ORG/NAME, e.g. \"Qwen/Qwen2.5-7B-Instruct\"", repo)
	}
	h.org, h.name = org, name
	if err := h.checkRevision(); err != nil {
		return err
	}
	switch hubKind {
	case "", "model":
	case "dataset":
		h.dataset = true
	default:
		return fmt.Errorf("huggingface kind %q must be \"model\" or \"dataset\"", hubKind)
	}
	if h.endpoint == "" {
		h.endpoint = "https://huggingface.co"
	}
	if err := checkHTTPURL("huggingface endpoint", h.endpoint); err != nil {
		return err
	}
	for _, p := range h.files {
		if _, err := compileGlob(p); err != nil {
			return fmt.Errorf("huggingface files: %w", err)
		}
	}
	sort.Strings(h.files)
	c.hf = h
	return nil
}

// checkRevision takes a revision that is not a 40-hex commit as a branch or
// tag to resolve (and pin), as git_repo takes a ref.
func (h *hfConfig) checkRevision() error {
	r := h.revision
	switch {
	case commitRE.MatchString(r):
		return nil
	case r == "":
		return errors.New("huggingface revision is empty: set a 40-hex commit SHA, or a branch or tag such as \"main\" (resolved once and pinned in kiln.lock.hcl)")
	case commitRE.MatchString(strings.ToLower(r)):
		return fmt.Errorf("huggingface revision %q: write the commit SHA in lower case", r)
	case len(r) > 255 || !hubRefRE.MatchString(r) || strings.Contains(r, "..") || strings.Contains(r, "//") || strings.HasSuffix(r, "/"):
		return fmt.Errorf("huggingface revision %q is neither a 40-hex commit SHA nor a branch or tag name", r)
	}
	h.ref, h.revision = r, ""
	return nil
}

// checkHTTPURL refuses anything but an absolute http or https URL.
func checkHTTPURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s %q is not a URL: %w", what, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s %q: scheme %q is not supported; fetch downloads over http and https only (use git_repo for git, exec for anything else)", what, raw, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("%s %q has no host", what, raw)
	}
	return nil
}

// defaultFilename is the last path element of a URL.
func defaultFilename(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("url %q is not a URL: %w", raw, err)
	}
	base := path.Base(u.Path)
	if base == "/" || base == "." || base == "" || strings.HasSuffix(u.Path, "/") {
		return "", fmt.Errorf("url %q has no file name in its path; set filename", raw)
	}
	return base, nil
}

func wholeNumber(f *big.Float) (int64, error) {
	if !f.IsInt() || f.Sign() < 0 {
		return 0, fmt.Errorf("%s is not a whole number of bytes ≥ 0", f.Text('g', -1))
	}
	n, acc := f.Int64()
	if acc != big.Exact {
		return 0, fmt.Errorf("%s is too large", f.Text('g', -1))
	}
	return n, nil
}
