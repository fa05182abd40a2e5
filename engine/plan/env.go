package plan

import (
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/zclconf/go-cty/cty"
)

// passEnv are the variables of kiln's own environment a node's processes
// inherit. Everything else a node needs it names in env, so that what it
// sees is in its key.
var passEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "TERM", "SHELL"}

// baseEnv is the minimal environment of a node's processes: a new slice,
// whose strings are those of the last one made while the variables keep
// their values (every node of a plan has the same).
func baseEnv() []string {
	baseMu.Lock()
	defer baseMu.Unlock()
	same := true
	for i, name := range passEnv {
		v, ok := os.LookupEnv(name)
		if ok != baseSet[i] || v != baseValues[i] {
			same = false
			baseSet[i], baseValues[i] = ok, v
		}
	}
	if !same || baseLast == nil {
		baseLast = baseLast[:0:0]
		for i, name := range passEnv {
			if baseSet[i] {
				baseLast = append(baseLast, name+"="+baseValues[i])
			}
		}
	}
	return slices.Clone(baseLast)
}

// The last minimal environment made (baseEnv), and what each variable of
// passEnv was then.
var (
	baseMu     sync.Mutex
	baseLast   []string
	baseSet    = make([]bool, len(passEnv))
	baseValues = make([]string, len(passEnv))
)

// NodeEnv is the environment n's processes start from: the minimal
// environment, the variables its toolchain captured, and the node's
// env_prepend and env_append (from ev, its evaluated configuration; nil for
// none) applied to them. known is false while the toolchain's variables are
// not known (it is still to be built). A kind's own settings (exec's env)
// and KILN_OUT come on top.
func NodeEnv(n *config.Node, vals config.Values, ev *config.Evaluated) (env []string, known bool) {
	env, known = toolchainEnv(n, vals)
	if ev != nil {
		before, after := ev.EnvExtensions()
		env = extendEnv(env, before, after)
	}
	return env, known
}

// toolchainEnv is the minimal environment with the toolchain's variables.
func toolchainEnv(n *config.Node, vals config.Values) (env []string, known bool) {
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
	if len(add) == 0 {
		return env
	}
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

// extendEnv puts paths before or after the value each named variable has in
// env — the host's and the toolchain's — joined with ":"; a variable env
// lacks, or has empty, gets the paths alone (env_prepend, env_append).
func extendEnv(env []string, before, after map[string][]string) []string {
	names := map[string]bool{}
	for k := range before {
		names[k] = true
	}
	for k := range after {
		names[k] = true
	}
	set := map[string]string{}
	for name := range names {
		var parts []string
		parts = append(parts, before[name]...)
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				if v != "" {
					parts = append(parts, v)
				}
				break
			}
		}
		parts = append(parts, after[name]...)
		set[name] = strings.Join(parts, string(os.PathListSeparator))
	}
	return MergeEnv(env, sortedEnv(set)...)
}

func sortedEnv(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
