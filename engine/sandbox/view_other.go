//go:build !linux

package sandbox

import "errors"

func (v *View) enter() error { return errors.New("sandbox: only Linux has mount namespaces") }

func viewProbe() error { return errors.New("only Linux has the mount namespaces that fix the paths") }
