package service

import (
	"fmt"
	"math/big"
	"strings"
	"syscall"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/sys/unix"
)

// Readers of the attributes of a decoded block. The engine has already
// checked types against the Spec, so these only interpret values.

// parseSignal accepts "SIGTERM", "TERM" or "sigterm".
func parseSignal(name string) (syscall.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if sig := unix.SignalNum(n); sig != 0 {
		return sig, nil
	}
	return 0, fmt.Errorf("unknown signal %q: use a name such as SIGTERM, SIGINT or SIGHUP", name)
}

// commandValue reads a command given as a list (argv) or a string (run by
// /bin/sh -c). A null value is an empty command.
func commandValue(v cty.Value, name string) ([]string, error) {
	switch {
	case v.IsNull():
		return nil, nil
	case v.Type() == cty.String:
		if strings.TrimSpace(v.AsString()) == "" {
			return nil, nil
		}
		return []string{"/bin/sh", "-c", v.AsString()}, nil
	case v.Type().IsListType() || v.Type().IsTupleType() || v.Type().IsSetType():
		var argv []string
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			s, err := convert.Convert(e, cty.String)
			if err != nil || s.IsNull() {
				return nil, fmt.Errorf("%s: every element must be a string", name)
			}
			argv = append(argv, s.AsString())
		}
		return argv, nil
	default:
		return nil, fmt.Errorf("%s must be a list of strings or a string, not %s", name, v.Type().FriendlyName())
	}
}

func stringAttr(obj cty.Value, name string) string {
	v := obj.GetAttr(name)
	if v.IsNull() {
		return ""
	}
	return v.AsString()
}

func mapAttr(obj cty.Value, name string) map[string]string {
	v := obj.GetAttr(name)
	if v.IsNull() {
		return nil
	}
	m := map[string]string{}
	for k, e := range v.AsValueMap() {
		if !e.IsNull() {
			m[k] = e.AsString()
		}
	}
	return m
}

func intAttr(obj cty.Value, name string) (int, error) {
	v := obj.GetAttr(name)
	if v.IsNull() {
		return 0, nil
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if acc != big.Exact || i < -1<<31 || i > 1<<31-1 {
		return 0, fmt.Errorf("%s must be a whole number, got %s", name, bf.Text('g', 10))
	}
	return int(i), nil
}

func durationAttr(obj cty.Value, name string, def time.Duration) (time.Duration, error) {
	s := stringAttr(obj, name)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s = %q is not a positive duration: write it like \"250ms\", \"10s\" or \"2m\"", name, s)
	}
	return d, nil
}
