package render

import (
	"sort"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/pool"
)

// PlanFormatVersion versions the JSON plan schema (docs/plan-json.md).
// Additions keep the version; removals or changes of meaning bump it.
const PlanFormatVersion = "1"

// PlanJSON is the stable model of a plan.
type PlanJSON struct {
	FormatVersion string         `json:"format_version"`
	KilnVersion   string         `json:"kiln_version"`
	Pipeline      string         `json:"pipeline"`
	State         StateJSON      `json:"state"`
	Summary       map[string]int `json:"summary"`
	Changes       []ChangeJSON   `json:"changes"`
	Forget        []string       `json:"forget"`
	Moved         []plan.Moved   `json:"moved"`
	Blocked       []BlockedJSON  `json:"blocked"`
	Pools         []PoolJSON     `json:"pools"`
	// Sandbox is what confines the runs of this machine, when the plan
	// runs an exec or service node.
	Sandbox *SandboxJSON `json:"sandbox,omitempty"`
}

// SandboxJSON is the protection sealed runs have on this machine.
type SandboxJSON struct {
	Enforced bool   `json:"enforced"`           // confined (Landlock), not only checked after each run
	Landlock int    `json:"landlock,omitempty"` // the kernel's Landlock ABI version
	Message  string `json:"message"`            // what it guarantees, or why there is no more
}

// PoolJSON is a resource pool the plan was made against.
type PoolJSON struct {
	Name     string         `json:"name"`
	Size     int64          `json:"size"`
	Devices  []int          `json:"devices,omitempty"` // device ids; absent for a counted pool
	Groups   [][]int        `json:"groups,omitempty"`
	Env      string         `json:"env,omitempty"`
	From     string         `json:"from"`
	Excluded []ExcludedJSON `json:"excluded,omitempty"`
}

// ExcludedJSON is a device left out of its pool.
type ExcludedJSON struct {
	Device  int    `json:"device"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// StateJSON identifies the state a plan was made against.
type StateJSON struct {
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
}

// ChangeJSON is one node's entry in a plan.
type ChangeJSON struct {
	Address   string           `json:"address"`
	Kind      string           `json:"kind"`
	Action    string           `json:"action"`
	Symbol    string           `json:"symbol"`
	Reasons   []ReasonJSON     `json:"reasons"`
	Key       string           `json:"key,omitempty"`
	Resume    bool             `json:"resume,omitempty"`
	Blocked   string           `json:"blocked,omitempty"`
	DependsOn []string         `json:"depends_on"`
	Resources map[string]int64 `json:"resources,omitempty"`
	// DecidedAfter, for a block whose for_each or count reads other
	// nodes' results (address KIND.NAME[*]), names the nodes that run
	// before its instances are known.
	DecidedAfter []string `json:"decided_after,omitempty"`
	// Executor is where the node runs: "local", or a Slurm executor's
	// address (slurm.NAME, or slurm).
	Executor string `json:"executor"`
	// TempRemoved: a temp node whose result was removed after use; it is
	// rebuilt only when a node that depends on it must run.
	TempRemoved bool `json:"temp_removed,omitempty"`
	// Protected: the action would replace a protected node's result, so
	// apply refuses it unless -replace names the node.
	Protected bool `json:"protected,omitempty"`
	// Unsandboxed is the sandbox_reason of a node with sandbox = false.
	Unsandboxed string `json:"unsandboxed,omitempty"`
	// LastDuration is the recorded duration of the node's last good run, in
	// seconds, when there is one.
	LastDuration float64 `json:"last_duration_s,omitempty"`
	// LockMismatch is set when the node's result has the key kiln.lock.hcl
	// records but another digest.
	LockMismatch *plan.LockMismatch `json:"lock_mismatch,omitempty"`
}

// ReasonJSON is one reason, with its sentence.
type ReasonJSON = plan.ReasonJSON

// BlockedJSON names a node that cannot run on this machine.
type BlockedJSON struct {
	Address string `json:"address"`
	Reason  string `json:"reason"`
	// Cause is the node whose own check blocks this one: itself, or the
	// host, toolchain or upstream node it needs, followed to the root.
	Cause string `json:"cause"`
}

// ModelPlan builds the JSON model of a plan. Up-to-date nodes are listed
// with action "no-op" so programs see the whole scope.
func ModelPlan(pl *plan.Plan, pipeline string, stamp StateJSON, version string) *PlanJSON {
	m := &PlanJSON{FormatVersion: PlanFormatVersion, KilnVersion: version, Pipeline: pipeline, State: stamp,
		Summary: map[string]int{}, Changes: make([]ChangeJSON, 0, len(pl.Changes)), Forget: []string{}, Moved: []plan.Moved{}, Blocked: []BlockedJSON{}, Pools: modelPools(pl.Pools)}
	for _, a := range []plan.Action{plan.Create, plan.Rebuild, plan.Maybe, plan.Restore, plan.Repair, plan.Start, plan.Fetch, plan.Forget, plan.NoOp} {
		m.Summary[a.Word()] = 0
	}
	causes := map[addr.Node]addr.Node{}
	for _, d := range pl.Changes {
		c := ChangeJSON{
			Address: d.Node.Addr.String(), Kind: d.Kind.Name(), Action: d.Action.Word(), Symbol: string(d.Action),
			Reasons: []ReasonJSON{}, Key: d.Key, Blocked: d.Blocked, DependsOn: []string{}, Resources: d.Node.Meta.Resources,
			LockMismatch: d.LockMismatch,
			Executor:     d.Node.Meta.Executor,
		}
		if c.Executor == "" {
			c.Executor = "local"
		}
		for _, r := range d.Reasons {
			c.Reasons = append(c.Reasons, r.JSON())
			if r.Kind == plan.ReasonResume {
				c.Resume = true
			}
		}
		for _, dep := range d.Node.Deps {
			c.DependsOn = append(c.DependsOn, dep.String())
		}
		for _, a := range d.After {
			c.DecidedAfter = append(c.DecidedAfter, a.String())
		}
		c.TempRemoved, c.Protected = d.TempRemoved, d.Protected
		if _, sealed := d.Kind.(kind.Sealed); sealed && d.Action.Runs() {
			c.Unsandboxed = d.Node.Meta.Unsandboxed
			if pr := pl.Sandbox; pr != nil && m.Sandbox == nil {
				m.Sandbox = &SandboxJSON{Enforced: pr.Enforced(), Landlock: pr.Landlock, Message: pr.String()}
			}
		}
		if d.Record.Good() && d.Record.Duration > 0 {
			c.LastDuration = d.Record.Duration.Seconds()
		}
		m.Summary[d.Action.Word()]++
		m.Changes = append(m.Changes, c)
		if d.Blocked != "" {
			cause := blockedCause(d, causes)
			causes[d.Node.Addr] = cause
			if d.Action != plan.NoOp {
				m.Blocked = append(m.Blocked, BlockedJSON{Address: c.Address, Reason: d.Blocked, Cause: cause.String()})
			}
		}
	}
	m.Forget = append(m.Forget, pl.Forget...)
	m.Moved = append(m.Moved, pl.Moved...)
	m.Summary[plan.Forget.Word()] = len(pl.Forget)
	sort.Slice(m.Blocked, func(i, j int) bool { return m.Blocked[i].Address < m.Blocked[j].Address })
	return m
}

// blockedCause finds the root of a blocked node, as the decider blocked it:
// its own check (a probe, its program, the resource pools) unless the host,
// toolchain or an upstream node it needs is blocked, in that order.
func blockedCause(d *plan.Decision, causes map[addr.Node]addr.Node) addr.Node {
	if d.Probe != nil && d.Probe.Blocked != "" {
		return d.Node.Addr
	}
	var needs []addr.Node
	for _, a := range []*addr.Node{d.Node.Meta.Host, d.Node.Meta.Toolchain} {
		if a != nil {
			needs = append(needs, *a)
		}
	}
	for _, a := range append(needs, d.Node.Deps...) {
		if root, ok := causes[a]; ok {
			return root
		}
	}
	return d.Node.Addr
}

func modelPools(set pool.Set) []PoolJSON {
	out := []PoolJSON{}
	for _, name := range set.Names() {
		p := set[name]
		j := PoolJSON{Name: name, Size: p.Size, Env: p.Env, From: p.From}
		if p.Devices != nil {
			j.Devices = p.Devices.Ints()
			for _, g := range p.Groups {
				j.Groups = append(j.Groups, g.Ints())
			}
		}
		for _, e := range p.Excluded {
			j.Excluded = append(j.Excluded, ExcludedJSON{Device: e.ID, Reason: e.Why, Message: p.Note(e)})
		}
		out = append(out, j)
	}
	return out
}

// HasChanges reports whether the modelled plan would do anything.
func (m *PlanJSON) HasChanges() bool {
	if len(m.Moved) > 0 {
		return true
	}
	for k, v := range m.Summary {
		if k != plan.NoOp.Word() && v > 0 {
			return true
		}
	}
	return false
}
