package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// listfile(path) reads a list or a map written to a file, typically by an
// upstream node that decides how many shards there are: a JSON array of
// strings or numbers, a JSON object, or plain text with one entry per line
// (blank lines and lines starting with # are skipped). A file starting with
// [, { or " is JSON; any other is text, so a file holding 42 is a list of
// one entry. It returns a value
// for_each takes as it is: an entry of a list is its own key and value, an
// object's member keeps its key and value. A key that appears twice, or a
// file that holds something else (a JSON number, an array of objects), is
// an error naming the file.
func listfileFunction(read func(string) ([]byte, error)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			name := args[0].AsString()
			b, err := read(name)
			if err != nil {
				return cty.NilVal, err
			}
			v, err := parseListFile(b)
			if err != nil {
				return cty.NilVal, fmt.Errorf("listfile %s: %w", name, err)
			}
			return v, nil
		},
	})
}

func parseListFile(b []byte) (cty.Value, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{') {
		return parseJSONList(trimmed)
	}
	if len(trimmed) > 0 && trimmed[0] == '"' {
		return cty.NilVal, fmt.Errorf("holds a JSON string, not a list or a map: write a JSON array or object, or one entry per line")
	}
	entries := map[string]cty.Value{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, dup := entries[line]; dup {
			return cty.NilVal, fmt.Errorf("line %d: %q appears twice; each entry is an instance key and must be unique", i+1, line)
		}
		entries[line] = cty.StringVal(line)
	}
	if len(entries) == 0 {
		return cty.MapValEmpty(cty.String), nil
	}
	return cty.MapVal(entries), nil
}

func parseJSONList(b []byte) (cty.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	open, err := dec.Token()
	if err != nil {
		return cty.NilVal, fmt.Errorf("not valid JSON: %w", err)
	}
	entries := map[string]cty.Value{}
	for dec.More() {
		switch open {
		case json.Delim('['):
			var x any
			if err := dec.Decode(&x); err != nil {
				return cty.NilVal, fmt.Errorf("not valid JSON: %w", err)
			}
			var key string
			switch e := x.(type) {
			case string:
				key = e
			case json.Number:
				key = e.String()
			default:
				return cty.NilVal, fmt.Errorf("an array entry is a JSON %s; a list file's entries are strings or numbers (use an object to give each key a value)", jsonKind(x))
			}
			if _, dup := entries[key]; dup {
				return cty.NilVal, fmt.Errorf("%q appears twice; each entry is an instance key and must be unique", key)
			}
			entries[key] = cty.StringVal(key)
		default:
			t, err := dec.Token()
			if err != nil {
				return cty.NilVal, fmt.Errorf("not valid JSON: %w", err)
			}
			key, _ := t.(string)
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return cty.NilVal, fmt.Errorf("not valid JSON: %w", err)
			}
			if _, dup := entries[key]; dup {
				return cty.NilVal, fmt.Errorf("key %q appears twice; each key is an instance key and must be unique", key)
			}
			ty, err := ctyjson.ImpliedType(raw)
			if err != nil {
				return cty.NilVal, fmt.Errorf("key %q: %w", key, err)
			}
			v, err := ctyjson.Unmarshal(raw, ty)
			if err != nil {
				return cty.NilVal, fmt.Errorf("key %q: %w", key, err)
			}
			entries[key] = v
		}
	}
	if _, err := dec.Token(); err != nil {
		return cty.NilVal, fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return cty.NilVal, fmt.Errorf("not valid JSON: more than one value")
	}
	if open == json.Delim('[') {
		if len(entries) == 0 {
			return cty.MapValEmpty(cty.String), nil
		}
		return cty.MapVal(entries), nil
	}
	return cty.ObjectVal(entries), nil
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}
