package gitrepo

import (
	"os"
	"strconv"
	"strings"
)

// repositoryVars locate a repository or index; inherited, they would point
// git at the wrong one.
var repositoryVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
	"GIT_TEMPLATE_DIR",
}

// userVars are the variables of kiln's own environment through which a user
// tells git how to reach servers: configuration files (url.<base>.insteadOf
// for mirrors, credential helpers, http.proxy), the ssh agent and command,
// proxies and certificates. git gets them from kiln's environment when the
// build's environment does not set them. None enters a key: they change how
// a commit is fetched, not what it holds.
var userVars = []string{
	"HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
	"SSH_AUTH_SOCK", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_PROXY_COMMAND",
	"GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_SSL_NO_VERIFY", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE",
	"http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
	"KRB5CCNAME",
}

// treeSettings override whatever the user's configuration says about what a
// checkout writes and which of its files are hashed, so one commit and one
// list of patches give one tree on every machine: line ends, symbolic links,
// global attributes and excludes, hooks (a post-checkout hook could edit the
// tree), submodule recursion, and colour in the output kiln reads. They are
// passed as GIT_CONFIG_KEY_n/VALUE_n after any the environment holds, so
// they win over every configuration file.
var treeSettings = [][2]string{
	{"core.autocrlf", "false"},
	{"core.eol", "lf"},
	{"core.safecrlf", "false"},
	{"core.symlinks", "true"},
	{"core.attributesFile", os.DevNull},
	{"core.excludesFile", os.DevNull},
	{"core.hooksPath", os.DevNull},
	{"core.fsmonitor", "false"},
	{"submodule.recurse", "false"},
	{"color.ui", "false"},
	{"color.diff", "false"},
	{"color.status", "false"},
}

// gitEnv is the environment git runs with: base without repository-locating
// variables; the user's variables (userVars) from user where base lacks
// them; no templates (GIT_TEMPLATE_DIR empty: a user's init.templateDir
// could add hooks or excludes); no LFS downloads at checkout; treeSettings;
// no terminal prompts; and ssh in batch mode unless the user names an ssh
// command.
func gitEnv(base, user []string) []string {
	has := map[string]bool{}
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if contains(repositoryVars, name) || isConfigCountVar(name) {
			continue
		}
		has[name] = true
		env = append(env, kv)
	}
	for _, kv := range user {
		name, _, _ := strings.Cut(kv, "=")
		if contains(userVars, name) && !has[name] {
			has[name] = true
			env = append(env, kv)
		}
	}
	// A user's LFS filter (git lfs install --system or --global) would
	// download LFS objects at checkout; a checkout holds pointer files
	// unless the node sets lfs = true, and then git lfs pull replaces them.
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_TEMPLATE_DIR=", "GIT_LFS_SKIP_SMUDGE=1")
	if !has["GIT_SSH_COMMAND"] && !has["GIT_SSH"] {
		env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	// Settings given through the environment (GIT_CONFIG_COUNT) are the
	// build's when it has any, else the user's; kiln's come after them.
	pairs := configPairs(base)
	if len(pairs) == 0 {
		pairs = configPairs(user)
	}
	pairs = append(pairs, treeSettings...)
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(pairs)))
	for i, p := range pairs {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+p[0], "GIT_CONFIG_VALUE_"+n+"="+p[1])
	}
	return env
}

// configPairs reads the settings an environment passes to git with
// GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n.
func configPairs(env []string) [][2]string {
	get := func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	s, _ := get("GIT_CONFIG_COUNT")
	count, err := strconv.Atoi(s)
	if err != nil || count <= 0 {
		return nil
	}
	var pairs [][2]string
	for i := 0; i < count; i++ {
		k, ok := get("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		if !ok {
			break
		}
		v, _ := get("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
		pairs = append(pairs, [2]string{k, v})
	}
	return pairs
}

func isConfigCountVar(name string) bool {
	return name == "GIT_CONFIG_COUNT" || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}
