package plan

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// keyInputs is everything a node's key is made of.
type keyInputs struct {
	kind    string
	version string
	config  cty.Value            // decoded, with self.out as the placeholder
	ext     map[string]cty.Value // env_prepend, env_append: written as attributes
	inputs  [][2]string          // path, digest
	files   [][2]string          // kind key files: path, digest
	from    [][2]string          // a dynamic instance's files under an upstream result: path, digest
	deps    []upstream
	facts   [][2]string       // probe key lines
	program *Program          // the resolved program (ResolveProgram), or nil
	run     []hash.Line       // the contract of a sealed run (runLines)
	env     map[string]string // env() reads
	paths   pathNormaliser
	// secret keys the hash that stands for sensitive values; nil means the
	// secret of the state folder paths names.
	secret *state.Secret
	// waitingInputs are inputs another node writes in place and that wait
	// on it (path → its address), their recorded digests assumed.
	waitingInputs map[string]string
	// unknownOK writes attributes not known yet as "(known after apply)"
	// instead of failing, for keys that are only compared, never used.
	unknownOK bool
}

// unknownValue stands for a value known only after an upstream runs.
const unknownValue = "(known after apply)"

// keyLines writes a node's key. Any new influence on a node's result must be
// reported here, and nowhere else. waiting maps the index of each line that
// depends on an upstream that has not run yet to that upstream's address.
func keyLines(in keyInputs) (key *hash.Key, waiting map[int]string, err error) {
	waiting = map[int]string{}
	k := hash.NewKey()
	k.AddLine(hash.Line{Label: "kind", Subject: in.kind, Value: in.version})
	in.paths.upstreams = upstreamMarks(in.deps)
	lines, err := attrLines(in)
	if err != nil {
		return nil, nil, err
	}
	waitingLine := map[int]string{}
	for _, l := range in.inputs {
		if by, ok := in.waitingInputs[l[0]]; ok {
			waitingLine[len(lines)] = by
		}
		lines = append(lines, hash.Line{Label: "input", Subject: in.paths.normalise(l[0]), Value: l[1]})
	}
	for _, l := range in.files {
		lines = append(lines, hash.Line{Label: "file", Subject: in.paths.normalise(l[0]), Value: l[1]})
	}
	deps := numberUpstreams(in.deps, lines)
	k.Grow(len(lines) + len(deps) + len(in.from) + len(in.facts) + 1 + len(in.run) + len(in.env))
	for i, l := range lines {
		k.AddLine(l)
		if l.Value == unknownValue {
			waiting[k.Len()-1] = "an upstream"
		}
		if by, ok := waitingLine[i]; ok {
			waiting[k.Len()-1] = by
		}
	}
	for i, u := range deps {
		k.AddLine(hash.Line{Label: "dep", Subject: strconv.Itoa(i + 1), Value: u.depValue(), Note: u.addr})
		if u.waiting || u.digest == "" {
			waiting[k.Len()-1] = u.addr
		}
	}
	for _, l := range in.from {
		k.AddLine(hash.Line{Label: "from", Subject: in.paths.normalise(l[0]), Value: l[1]})
	}
	for _, l := range in.facts {
		// A fact's name may hold a space (toolchain.setup PATH): its
		// subject is the name's first word, the rest goes with the value,
		// as the lines of state files before format 4 are read.
		name, rest, _ := strings.Cut(l[0], " ")
		value := l[1]
		if rest != "" {
			value = rest + " " + value
		}
		k.AddLine(hash.Line{Label: "fact", Subject: name, Value: value})
	}
	if in.program != nil {
		k.AddLine(in.program.Line())
	}
	for _, l := range in.run {
		k.AddLine(l)
	}
	if err := addEnvLines(k, in); err != nil {
		return nil, nil, err
	}
	return k, waiting, nil
}

// attrLines are the attr lines of a key: the configuration's attributes
// that are set, then the kind's extra values, each in name order.
func attrLines(in keyInputs) ([]hash.Line, error) {
	var lines []hash.Line
	attrs := in.config.Type().AttributeTypes()
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		v := in.config.GetAttr(n)
		if v.IsNull() {
			continue
		}
		s, err := canonical(v, in.paths, in.secret)
		if err == errUnknown && in.unknownOK {
			s, err = unknownValue, nil
		}
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", n, err)
		}
		lines = append(lines, hash.Line{Label: "attr", Subject: n, Value: s})
	}
	for _, n := range slices.Sorted(maps.Keys(in.ext)) {
		s, err := canonical(in.ext[n], in.paths, in.secret)
		if err == errUnknown && in.unknownOK {
			s, err = unknownValue, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		lines = append(lines, hash.Line{Label: "attr", Subject: n, Value: s})
	}
	return lines, nil
}

// addEnvLines adds the env lines: each environment variable the node's
// key reads, by name, its value hashed with the state folder's secret.
func addEnvLines(k *hash.Key, in keyInputs) error {
	secret := in.secret
	if secret == nil && len(in.env) > 0 {
		secret = state.SecretOf(in.paths.state)
	}
	for _, n := range slices.Sorted(maps.Keys(in.env)) {
		sum, err := secret.Sum([]byte(in.env[n]))
		if err != nil {
			return fmt.Errorf("environment variable %s: %w", n, err)
		}
		k.AddLine(hash.Line{Label: "env", Subject: n, Value: sum})
	}
	return nil
}

// pathNormaliser keeps absolute paths of the state folder and the pipeline
// folder out of keys, so a pipeline moved or cloned elsewhere keeps its keys.
// Upstream stable paths are written as references to their digests first.
type pathNormaliser struct {
	state, root string
	upstreams   *hash.Folders // upstreams' paths → their marks, numbered later (upstream.go); nil for none
}

func (p pathNormaliser) normalise(s string) string {
	if p.upstreams != nil {
		s = p.upstreams.Replace(s)
	}
	return hash.Relocatable(s, p.state, p.root)
}

// canonical encodes a value as JSON with sorted keys, normalised paths, and
// sensitive values replaced by their keyed hash (see state.Secret).
func canonical(v cty.Value, paths pathNormaliser, secret *state.Secret) (string, error) {
	if !v.IsWhollyKnown() {
		return "", errUnknown
	}
	if secret == nil {
		secret = state.SecretOf(paths.state)
	}
	v, err := cty.Transform(v, func(_ cty.Path, v cty.Value) (cty.Value, error) {
		if v.IsMarked() {
			inner, _ := v.UnmarkDeep()
			b := []byte(nil)
			if inner.Type() == cty.String && !inner.IsNull() {
				b = []byte(inner.AsString())
			} else {
				var err error
				if b, err = ctyjson.Marshal(inner, inner.Type()); err != nil {
					return cty.NilVal, err
				}
			}
			sum, err := secret.Sum(b)
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal("(sensitive " + sum + ")"), nil
		}
		if v.Type() == cty.String && !v.IsNull() {
			return cty.StringVal(paths.normalise(v.AsString())), nil
		}
		return v, nil
	})
	if err != nil {
		return "", err
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return "", err
	}
	return unescapeHTML(b), nil
}

// unescapeHTML writes the JSON encoding/json made with the \u003c-style
// escapes of <, > and & as those characters, so key lines read like the
// configuration they come from. Every other escape is kept: the text is
// what decoding it and encoding it again without HTML escapes gives, which
// a property test holds it to, without the decode.
func unescapeHTML(b []byte) string {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if c, ok := htmlEscape(b[i+1:]); ok {
			out = append(out, c)
			i += 5
			continue
		}
		out = append(out, b[i], b[i+1]) // another escape, \\ among them
		i++
	}
	return string(out)
}

// htmlEscape reads the u003c, u003e or u0026 of an escape, after its
// backslash.
func htmlEscape(b []byte) (byte, bool) {
	if len(b) < 5 {
		return 0, false
	}
	switch string(b[:5]) {
	case "u003c":
		return '<', true
	case "u003e":
		return '>', true
	case "u0026":
		return '&', true
	}
	return 0, false
}

type unknownError struct{}

func (unknownError) Error() string { return "value not known until an upstream node has run" }

var errUnknown error = unknownError{}
