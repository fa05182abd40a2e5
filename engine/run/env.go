package run

import (
	"os"
	"sort"
	"strings"
)

// passEnv are the variables of kiln's own environment a node's processes
// inherit. Everything else a node needs it names in env, so that what it
// sees is in its key.
var passEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM", "SHELL"}

// baseEnv is the minimal environment of a node's processes.
func baseEnv() []string {
	var env []string
	for _, name := range passEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	return env
}

// mergeEnv sets each "K=V" of add in env, replacing earlier values.
func mergeEnv(env []string, add ...string) []string {
	idx := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		idx[k] = i
	}
	for _, kv := range add {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			env[i] = kv
		} else {
			idx[k] = len(env)
			env = append(env, kv)
		}
	}
	return env
}

func sortedEnv(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
