package plan

import (
	"os"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/zclconf/go-cty/cty"
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

// NodeEnv is the environment n's processes start from: the minimal
// environment and the variables its toolchain captured. known is false while
// the toolchain's variables are not known (it is still to be built). A
// kind's own settings (exec's env) and KILN_OUT come on top.
func NodeEnv(n *config.Node, vals config.Values) (env []string, known bool) {
	env = baseEnv()
	tc := n.Meta.Toolchain
	if tc == nil {
		return env, true
	}
	v, ok := vals.NodeValue(*tc)
	if !ok || !v.Type().IsObjectType() || !v.Type().HasAttribute("env") {
		return env, false
	}
	e := v.GetAttr("env")
	if !e.IsWhollyKnown() || e.IsNull() || !(e.Type().IsMapType() || e.Type().IsObjectType()) {
		return env, false
	}
	m := map[string]string{}
	for k, x := range e.AsValueMap() {
		if x.Type() == cty.String {
			m[k] = x.AsString()
		}
	}
	return MergeEnv(env, sortedEnv(m)...), true
}

// MergeEnv sets each "K=V" of add in env, replacing earlier values.
func MergeEnv(env []string, add ...string) []string {
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
