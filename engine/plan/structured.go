package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Structured values — a map of parameters, a list, a YAML file decoded and
// passed on with jsonencode — are compared path by path, so a reason says
// "featurize.max_features: 30 → 50" instead of quoting two long JSON texts.
// A string that holds JSON (what jsonencode made) is compared inside, and so
// is a JSON object or list embedded in a longer string (a command line that
// passes one), where the two versions differ.

// maxPaths is the most changed paths one attribute is explained with; more
// fall back to the shortened old and new values.
const maxPaths = 12

// structuredReasons explains the change of attribute subject from old to
// cur (canonical JSON values) per changed path, or returns nil when the
// values are not structured that way.
func structuredReasons(subject, old, cur string) []Reason {
	a, okA := decodeJSON(old)
	b, okB := decodeJSON(cur)
	if !okA || !okB {
		return nil
	}
	var paths []pathChange
	if sa, ok := a.(string); ok {
		sb, ok := b.(string)
		if !ok {
			return nil
		}
		ea, eb, ok := embeddedJSON(sa, sb)
		if !ok {
			return nil
		}
		a, b = ea, eb
	}
	if !container(a) || !container(b) {
		return nil
	}
	walk("", a, b, &paths)
	if len(paths) == 0 || len(paths) > maxPaths {
		return nil
	}
	out := make([]Reason, len(paths))
	for i, p := range paths {
		out[i] = Reason{Kind: ReasonAttribute, Subject: subject, Path: p.path, Old: Clip(p.old), New: Clip(p.new)}
	}
	return out
}

type pathChange struct{ path, old, new string }

func decodeJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return v, true
}

func container(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// embeddedJSON finds, in two versions of a string, a JSON object or list
// that starts at the same place, before the first difference, and spans it
// in both.
func embeddedJSON(a, b string) (any, any, bool) {
	if v, ok := decodeJSON(a); ok && container(v) {
		if w, ok := decodeJSON(b); ok && container(w) {
			return v, w, true
		}
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for i := min(p, len(a)-1); i >= 0; i-- {
		if a[i] != '{' && a[i] != '[' {
			continue
		}
		va, ea, okA := decodePrefix(a[i:])
		vb, eb, okB := decodePrefix(b[i:])
		if okA && okB && i+ea > p && i+eb > p {
			return va, vb, true
		}
	}
	return nil, nil, false
}

// decodePrefix decodes the JSON value at the start of s and says where it
// ends.
func decodePrefix(s string) (any, int, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || !container(v) {
		return nil, 0, false
	}
	return v, int(dec.InputOffset()), true
}

// walk records the paths where a and b differ. A string holding JSON is
// walked into.
func walk(path string, a, b any, out *[]pathChange) {
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok && sa != sb {
			if ja, ok := decodeJSON(sa); ok && container(ja) {
				if jb, ok := decodeJSON(sb); ok && container(jb) {
					walk(path, ja, jb, out)
					return
				}
			}
		}
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range x {
				keys[k] = true
			}
			for k := range y {
				keys[k] = true
			}
			names := make([]string, 0, len(keys))
			for k := range keys {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				va, inA := x[k]
				vb, inB := y[k]
				p := joinPath(path, k)
				switch {
				case !inA:
					*out = append(*out, pathChange{p, "(unset)", text(vb)})
				case !inB:
					*out = append(*out, pathChange{p, text(va), "(unset)"})
				default:
					walk(p, va, vb, out)
				}
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok && len(x) == len(y) {
			for i := range x {
				walk(path+"["+strconv.Itoa(i)+"]", x[i], y[i], out)
			}
			return
		}
	}
	if ta, tb := text(a), text(b); ta != tb {
		if path == "" {
			path = "(value)"
		}
		*out = append(*out, pathChange{path, ta, tb})
	}
}

func joinPath(path, key string) string {
	if !plainKey(key) {
		key = strconv.Quote(key)
		if path == "" {
			return "[" + key + "]"
		}
		return path + "[" + key + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// text is a JSON value as a reason shows it: strings bare when they are
// plain, everything else as compact JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
