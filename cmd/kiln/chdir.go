package main

import (
	"fmt"
	"os"
	"strings"
)

// globalOptions applies the options every command takes, wherever they
// stand before a "--": -chdir=DIR (or -chdir DIR) makes kiln run as if
// started in DIR, as Terraform's -chdir does. It returns the other
// arguments.
func (c *cli) globalOptions(args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "chdir" {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 == len(args) {
				return nil, fmt.Errorf("-chdir needs a folder: kiln -chdir=DIR COMMAND")
			}
			i++
			val = args[i]
		}
		if err := os.Chdir(val); err != nil {
			return nil, fmt.Errorf("-chdir=%s: %w", val, unwrapPath(err))
		}
	}
	return rest, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
