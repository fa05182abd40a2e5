package service

import (
	"fmt"
	"strings"
	"syscall"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"golang.org/x/sys/unix"
)

// Readers of the values a service block holds beyond what engine/kind/attr
// reads: signal names and commands given as a string or a list.

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
