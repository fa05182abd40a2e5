package render

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/providers/exec"
)

// TestBlockedOncePerCause: nodes that cannot run because of the same host
// or toolchain are listed under that cause, whose reason is printed once,
// split at its semicolons.
func TestBlockedOncePerCause(t *testing.T) {
	host := addr.Node{Kind: "host", Name: "a2"}
	cann := addr.Node{Kind: "toolchain", Name: "cann"}
	k := exec.New()
	hostReason := "host a2: needs 8 NPUs, found 0 (npu-smi not found on PATH); needs CANN 8.3.RC1, found none"
	cannReason := "toolchain cann: set_env.sh not found (install CANN; or set the path); version file missing"
	dec := func(n *config.Node, blocked string, probe bool) *plan.Decision {
		d := &plan.Decision{Node: n, Kind: k, Action: plan.Create, Blocked: blocked}
		if probe {
			d.Probe = &kind.Probe{Blocked: blocked}
		}
		return d
	}
	hostNode := &config.Node{Addr: host, CountIdx: -1}
	cannNode := &config.Node{Addr: cann, CountIdx: -1}
	train := node("train")
	train.Meta.Host = &host
	wheel := node("wheel")
	wheel.Meta.Toolchain = &cann
	env := node("env", "wheel")
	prep := node("prep", "env")
	pl := &plan.Plan{Changes: []*plan.Decision{
		dec(hostNode, hostReason, true),
		dec(cannNode, cannReason, true),
		dec(train, "host.a2: needs 8 NPUs, found 0 (npu-smi not found on PATH); needs CANN 8.3.RC1, found none", false),
		dec(wheel, "toolchain.cann: set_env.sh not found (install CANN; or set the path); version file missing", false),
		dec(env, "needs exec.wheel, which cannot run here", false),
		dec(prep, "needs exec.env, which cannot run here", false),
	}}
	m := ModelPlan(pl, "p", StateJSON{}, "v")
	causes := map[string]string{}
	for _, b := range m.Blocked {
		causes[b.Address] = b.Cause
	}
	want := map[string]string{"host.a2": "host.a2", "exec.train": "host.a2", "toolchain.cann": "toolchain.cann",
		"exec.wheel": "toolchain.cann", "exec.env": "toolchain.cann", "exec.prep": "toolchain.cann"}
	if diff := cmp.Diff(want, causes); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	var b bytes.Buffer
	writeBlocked(&b, m, Colors{})
	wantText := `
6 nodes cannot run on this machine, for 2 reasons:

  host.a2:
      needs 8 NPUs, found 0 (npu-smi not found on PATH)
      needs CANN 8.3.RC1, found none
    blocks 2 nodes: exec.train, host.a2

  toolchain.cann:
      set_env.sh not found (install CANN; or set the path)
      version file missing
    blocks 4 nodes: exec.env, exec.prep, exec.wheel, toolchain.cann
`
	if diff := cmp.Diff(wantText, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}
