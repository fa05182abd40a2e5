//go:build !linux

package sandbox

import "os/exec"

func startConfined(cmd *exec.Cmd, _ *Policy) error { return cmd.Start() }

// Probe says what confines a run on this machine: nothing but Linux has
// Landlock.
func Probe() Protection {
	return Protection{Reason: "only Linux has Landlock", ViewReason: viewProbe().Error()}
}
