package gitrepo

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/zclconf/go-cty/cty"
)

// config is a git_repo block after decoding and validation.
type config struct {
	URL        string
	Commit     string // lowercase 40-hex SHA; "" when Ref is used
	Ref        string
	Patches    []string // as written: relative to the pipeline folder or absolute
	Submodules bool
	LFS        bool
}

// decodeConfig reads and validates the object that Spec decoded.
func decodeConfig(v cty.Value) (config, error) {
	var c config
	if v.Type() == cty.NilType {
		return c, fmt.Errorf("git_repo has no configuration")
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsWhollyKnown() || !v.Type().IsObjectType() {
		return c, fmt.Errorf("git_repo configuration is not fully known; it may depend on a node that has not been built")
	}
	var err error
	if c.URL, _, err = attr.String(v, "url"); err != nil {
		return c, err
	}
	if err := checkURL(c.URL); err != nil {
		return c, err
	}
	commit, hasCommit, err := attr.String(v, "commit")
	if err != nil {
		return c, err
	}
	ref, hasRef, err := attr.String(v, "ref")
	if err != nil {
		return c, err
	}
	switch {
	case hasCommit && hasRef:
		return c, fmt.Errorf("git_repo %s: set either commit or ref, not both (commit pins the checkout; ref is resolved to a commit once)", c.URL)
	case !hasCommit && !hasRef:
		return c, fmt.Errorf("git_repo %s: one of commit (a full 40-hex SHA) or ref (a branch or tag) is required", c.URL)
	case hasCommit:
		if c.Commit, err = checkCommit(commit); err != nil {
			return c, err
		}
	default:
		if err := checkRef(ref); err != nil {
			return c, err
		}
		c.Ref = ref
	}
	if c.Patches, err = attr.Strings(v, "patches"); err != nil {
		return c, err
	}
	for _, p := range c.Patches {
		if p == "" {
			return c, fmt.Errorf("git_repo attribute patches holds an empty path")
		}
	}
	if c.Submodules, err = attr.Bool(v, "submodules"); err != nil {
		return c, err
	}
	if c.LFS, err = attr.Bool(v, "lfs"); err != nil {
		return c, err
	}
	return c, nil
}

var (
	fullSHA      = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)
	helperPrefix = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)::`)
)

// checkURL refuses urls that git could read as command-line options or as a
// transport that runs arbitrary commands.
func checkURL(url string) error {
	refuse := func(why string) error {
		return fmt.Errorf("git_repo url %q refused: %s; give an https://, ssh://, file:// url or a local path", url, why)
	}
	if url == "" {
		return fmt.Errorf("git_repo url is empty; give an https://, ssh://, file:// url or a local path")
	}
	if strings.HasPrefix(url, "-") {
		return refuse("it begins with '-' and would be read as a git option")
	}
	for _, r := range url {
		if r < 0x20 || r == 0x7f {
			return refuse("it contains a control character")
		}
	}
	lower := strings.ToLower(url)
	for _, opt := range []string{"--upload-pack", "--receive-pack", "--exec", "--config"} {
		if strings.Contains(lower, opt) {
			return refuse("it embeds the git option " + opt)
		}
	}
	for i, f := range strings.Fields(url) {
		if i > 0 && strings.HasPrefix(f, "-") {
			return refuse("it embeds the option " + f)
		}
	}
	if m := helperPrefix.FindStringSubmatch(url); m != nil {
		switch strings.ToLower(m[1]) {
		case "ext", "fd":
			return refuse("the " + m[1] + ":: transport runs commands")
		}
	}
	if host := urlHost(url); strings.HasPrefix(host, "-") {
		return refuse("its host " + host + " begins with '-' and would be read as an ssh option")
	}
	return nil
}

// urlHost returns the host part of an ssh:// (or other scheme://) url or of
// an scp-like user@host:path, or "" for a local path.
func urlHost(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		rest := url[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		if j := strings.LastIndexByte(rest, '@'); j >= 0 {
			rest = rest[j+1:]
		}
		return rest
	}
	colon := strings.IndexByte(url, ':')
	slash := strings.IndexByte(url, '/')
	if colon < 0 || (slash >= 0 && slash < colon) {
		return ""
	}
	host := url[:colon]
	if j := strings.LastIndexByte(host, '@'); j >= 0 {
		host = host[j+1:]
	}
	return host
}

// resolveURL makes a relative local path absolute against the pipeline
// folder, so every git command reads the same repository whatever its
// working folder.
func resolveURL(root, url string) string {
	if strings.Contains(url, "://") || helperPrefix.MatchString(url) || urlHost(url) != "" || filepath.IsAbs(url) {
		return url
	}
	return filepath.Join(root, url)
}

// checkCommit returns the commit in lowercase or says that a full SHA is needed.
func checkCommit(s string) (string, error) {
	if !fullSHA.MatchString(s) {
		return "", fmt.Errorf("git_repo commit %q is not a full 40-hex SHA: a full SHA is needed (run git rev-parse %s in a clone to get it), or use ref for a branch or tag", s, shellWord(s))
	}
	return strings.ToLower(s), nil
}

// checkRef refuses refs that git would read as options or that no branch or
// tag can be named.
func checkRef(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("git_repo ref is empty; give a branch or tag name")
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("git_repo ref %q refused: it begins with '-' and would be read as a git option", s)
	case strings.ContainsAny(s, " \t\n\r~^:?*[\\\x7f") || strings.Contains(s, "..") || strings.Contains(s, "@{"):
		return fmt.Errorf("git_repo ref %q is not a valid branch or tag name", s)
	}
	for _, r := range s {
		if r < 0x20 {
			return fmt.Errorf("git_repo ref %q is not a valid branch or tag name", s)
		}
	}
	return nil
}

// shellWord quotes s for an example command line in an error message.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
