package attr

import (
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// Reader reads several attributes of one object and keeps the first error,
// so that a decoder reads on and checks once. After an error every read
// returns the zero value.
type Reader struct {
	obj    cty.Value
	prefix string
	err    error
}

// Read returns a Reader of obj.
func Read(obj cty.Value) *Reader { return &Reader{obj: obj} }

// ReadIn returns a Reader of a nested block whose errors name attributes
// after prefix: ReadIn(step, "install[2].").
func ReadIn(obj cty.Value, prefix string) *Reader { return &Reader{obj: obj, prefix: prefix} }

// Err is the first error a read met.
func (r *Reader) Err() error { return r.err }

func (r *Reader) keep(err error) bool {
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("%s%w", r.prefix, err)
	}
	return r.err == nil
}

// String reads a string attribute (String).
func (r *Reader) String(name string) string {
	if r.err != nil {
		return ""
	}
	s, _, err := String(r.obj, name)
	r.keep(err)
	return s
}

// Bool reads a boolean attribute (Bool).
func (r *Reader) Bool(name string) bool {
	if r.err != nil {
		return false
	}
	b, err := Bool(r.obj, name)
	return r.keep(err) && b
}

// Int reads a whole number (Int).
func (r *Reader) Int(name string) int {
	if r.err != nil {
		return 0
	}
	n, err := Int(r.obj, name)
	r.keep(err)
	return n
}

// Duration reads a positive duration, def when absent (Duration).
func (r *Reader) Duration(name string, def time.Duration) time.Duration {
	if r.err != nil {
		return 0
	}
	d, err := Duration(r.obj, name, def)
	r.keep(err)
	return d
}

// Strings reads a list of strings (Strings).
func (r *Reader) Strings(name string) []string {
	if r.err != nil {
		return nil
	}
	l, err := Strings(r.obj, name)
	r.keep(err)
	return l
}

// StringMap reads a map of strings (StringMap).
func (r *Reader) StringMap(name string) map[string]string {
	if r.err != nil {
		return nil
	}
	m, err := StringMap(r.obj, name)
	r.keep(err)
	return m
}

// ListCommand returns the node's configuration, unmarked, when its command
// attribute names a program of its own — a list, wholly known — for a
// kind.ProgramRunner to resolve. false for a string (it runs /bin/sh -c and
// names no program), for a configuration not known yet, and for a command
// holding a sensitive value, whose program would enter the key in clear.
func ListCommand(cfg cty.Value) (cty.Value, bool) {
	if cfg.IsNull() || !cfg.IsWhollyKnown() || !cfg.Type().IsObjectType() || !cfg.Type().HasAttribute("command") {
		return cty.NilVal, false
	}
	if c := cfg.GetAttr("command"); c.IsNull() || c.Type() == cty.String || c.ContainsMarked() {
		return cty.NilVal, false
	}
	cfg, _ = cfg.UnmarkDeep()
	return cfg, true
}
