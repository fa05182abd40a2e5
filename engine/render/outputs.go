package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// OutputValue is one pipeline output as kiln output shows it.
type OutputValue struct {
	Name      string
	Value     cty.Value // unmarked; unknown until the nodes it needs are built
	Sensitive bool
	// Pending are the nodes it comes from that kiln apply has still to
	// build: until then the value means nothing.
	Pending []string
}

func (o OutputValue) known() bool { return o.Value.IsWhollyKnown() && len(o.Pending) == 0 }

// notKnown says what the value waits for.
func (o OutputValue) notKnown() error {
	if len(o.Pending) > 0 {
		return fmt.Errorf("known after apply: kiln apply builds %s first", strings.Join(o.Pending, ", "))
	}
	return ErrNotKnown
}

// OutputJSON is one output in kiln output -json, Terraform's shape: the
// value, its type and whether it is sensitive.
type OutputJSON struct {
	Sensitive bool            `json:"sensitive"`
	Type      json.RawMessage `json:"type"`
	Value     json.RawMessage `json:"value"`
	// Pending lists the nodes to build before the value means anything;
	// value is null until then.
	Pending []string `json:"pending,omitempty"`
}

// OutputsText writes name = value lines: values as JSON, sensitive ones
// hidden, unknown ones said to be known after apply.
func OutputsText(w io.Writer, outs []OutputValue) {
	for _, o := range outs {
		fmt.Fprintf(w, "%s = %s\n", o.Name, outputText(o))
	}
}

func outputText(o OutputValue) string {
	switch {
	case o.Sensitive:
		return "(sensitive)"
	case len(o.Pending) > 0:
		return "(" + o.notKnown().Error() + ")"
	case !o.Value.IsWhollyKnown():
		return "(known after apply)"
	}
	b, err := ctyjson.Marshal(o.Value, o.Value.Type())
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return string(b)
}

// OutputsJSON is every output as an object keyed by name. Sensitive values
// are included, as in Terraform: -json is for programs. An unknown value is
// null.
func OutputsJSON(outs []OutputValue) (map[string]OutputJSON, error) {
	m := map[string]OutputJSON{}
	for _, o := range outs {
		j, err := outputJSON(o)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", o.Name, err)
		}
		m[o.Name] = j
	}
	return m, nil
}

func outputJSON(o OutputValue) (OutputJSON, error) {
	ty, err := ctyjson.MarshalType(o.Value.Type())
	if err != nil {
		return OutputJSON{}, err
	}
	val := json.RawMessage("null")
	if o.known() {
		if val, err = ctyjson.Marshal(o.Value, o.Value.Type()); err != nil {
			return OutputJSON{}, err
		}
	}
	return OutputJSON{Sensitive: o.Sensitive, Type: ty, Value: val, Pending: o.Pending}, nil
}

// OutputValueJSON is one output's value alone, as JSON.
func OutputValueJSON(o OutputValue) ([]byte, error) {
	if !o.known() {
		return nil, o.notKnown()
	}
	return ctyjson.Marshal(o.Value, o.Value.Type())
}

// ErrNotKnown is returned for a value that is known only after an apply.
var ErrNotKnown = errors.New("the value is known only after kiln apply builds the nodes it comes from")

// OutputRaw is a string, number or bool output as plain text, for shell
// scripts: a string without quotes or escapes.
func OutputRaw(o OutputValue) (string, error) {
	v := o.Value
	if !o.known() {
		return "", o.notKnown()
	}
	if v.IsNull() {
		return "", errors.New("the value is null")
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), nil
	case cty.Number:
		return v.AsBigFloat().Text('f', -1), nil
	case cty.Bool:
		return fmt.Sprint(v.True()), nil
	}
	return "", fmt.Errorf("-raw prints strings, numbers and bools; this value is a %s (use -json)", v.Type().FriendlyName())
}
