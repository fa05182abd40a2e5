package pool

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Elastic are the resources a node can do with less of, by the name of the
// environment variable that tells its command what it got: asking for more
// CPUs or memory than the machine has runs the node with what there is
// (the command reads the amount from $KILN_CPUS, $KILN_MEM_MB or
// ${self.resources.NAME}), with a warning. Any other pool (npu) asked beyond
// its size stops the node: a training run sized for 8 NPUs cannot run on 2.
var Elastic = map[string]string{"cpu": "KILN_CPUS", "mem_mb": "KILN_MEM_MB"}

// Default variables of the device pools kiln knows by name.
var defaultEnv = map[string]string{
	"npu": "ASCEND_RT_VISIBLE_DEVICES",
	"gpu": "CUDA_VISIBLE_DEVICES",
}

// DefaultEnv is the variable a pool's ids are exported in when its pool
// block does not say: ASCEND_RT_VISIBLE_DEVICES for npu, CUDA_VISIBLE_DEVICES
// for gpu, none for other pools.
func DefaultEnv(name string) string { return defaultEnv[name] }

// Spec is a `pool "NAME" { ... }` block of the pipeline.
type Spec struct {
	Name    string
	Devices IDs     // nil when not set
	Env     *string // nil when not set: DefaultEnv
	Groups  []IDs   // placement groups, disjoint
}

// Given is one -resource value: a count, or device ids.
type Given struct {
	Count int64
	IDs   IDs // non-nil when ids were given
}

// Exclusion is a device left out of its pool, and why.
type Exclusion struct {
	ID  int
	Why string // "health Warning"
}

// Host is what a host node reports about the NPUs of the machine: the
// healthy ones and the ones to leave out.
type Host struct {
	Addr     string // "host.a2"
	IDs      IDs
	Excluded []Exclusion
}

// Pool is one resolved resource pool.
type Pool struct {
	Name     string
	Size     int64       // how many units it holds
	Devices  IDs         // the usable device ids; nil for a counted pool
	Groups   []IDs       // placement groups as declared (the scheduler drops ids not in Devices)
	Env      string      // the variable a node's ids are exported in; "" exports none
	Excluded []Exclusion // devices left out, by id
	From     string      // where the ids came from: "-resource", "pool block", a host address
}

// Note is the line a plan shows for an excluded device: "npu 3: health
// Warning, excluded".
func (p *Pool) Note(e Exclusion) string {
	return fmt.Sprintf("%s %d: %s, excluded", p.Name, e.ID, e.Why)
}

// Notes are the plan's lines for every excluded device.
func (p *Pool) Notes() []string {
	var out []string
	for _, e := range p.Excluded {
		out = append(out, p.Note(e))
	}
	return out
}

// Set is the pools of one plan or apply, by name. A resource with no pool
// is unlimited.
type Set map[string]*Pool

// Names returns the pools' names, sorted.
func (s Set) Names() []string { return slices.Sorted(maps.Keys(s)) }

// Capacity is every pool's size.
func (s Set) Capacity() map[string]int64 {
	out := map[string]int64{}
	for name, p := range s {
		out[name] = p.Size
	}
	return out
}

// Counts is a set of counted pools of the given sizes.
func Counts(sizes map[string]int64) Set {
	s := Set{}
	for name, n := range sizes {
		s[name] = &Pool{Name: name, Size: n, From: "-resource"}
	}
	return s
}

// Blocked says why a node asking for resources can never run against
// these pools, or "" when it can. The first resource too large is named.
func (s Set) Blocked(resources map[string]int64) string {
	for _, name := range slices.Sorted(maps.Keys(resources)) {
		p, asked := s[name], resources[name]
		if p == nil || asked <= p.Size || Elastic[name] != "" && p.Devices == nil {
			continue
		}
		if p.Devices == nil {
			return fmt.Sprintf("needs %s=%d but this machine has %d (set the pool with -resource %s=N)", name, asked, p.Size, name)
		}
		why := fmt.Sprintf("needs %s=%d but the %s pool has %d device%s (%s)", name, asked, name, p.Size, plural(p.Size), p.Devices)
		if notes := p.Notes(); len(notes) > 0 {
			why += "; " + strings.Join(notes, "; ")
		}
		return why
	}
	return ""
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Sources are everything a Set is assembled from.
type Sources struct {
	Specs map[string]*Spec // the pipeline's pool blocks
	Given map[string]Given // -resource values
	Host  *Host            // the NPUs a host node reports; nil when none does
	CPUs  int              // the cpu pool's default size
	MemMB int64            // the mem_mb pool's default size; 0: unknown, no pool
}

// Resolve assembles the pools. A pool with neither a size nor ids is left
// out (unlimited): a pool block on a machine that lacks its devices does
// not stop a plan.
func Resolve(src Sources) Set {
	names := map[string]bool{"cpu": true, "mem_mb": true}
	for name := range src.Specs {
		names[name] = true
	}
	for name := range src.Given {
		names[name] = true
	}
	if src.Host != nil {
		names["npu"] = true
	}
	set := Set{}
	for name := range names {
		if p := resolveOne(name, src); p != nil {
			set[name] = p
		}
	}
	return set
}

func resolveOne(name string, src Sources) *Pool {
	spec := src.Specs[name]
	if spec == nil {
		spec = &Spec{Name: name}
	}
	p := &Pool{Name: name, Env: DefaultEnv(name), Groups: spec.Groups}
	if spec.Env != nil {
		p.Env = *spec.Env
	}
	given, hasGiven := src.Given[name]
	var host *Host
	if name == "npu" && src.Host != nil && (len(src.Host.IDs) > 0 || len(src.Host.Excluded) > 0) {
		host = src.Host
	}
	// The ids the pool may use before any count applies.
	var ids IDs
	switch {
	case hasGiven && given.IDs != nil:
		ids, p.From = given.IDs, "-resource"
	case spec.Devices != nil:
		ids, p.From = spec.Devices, "pool block"
	case host != nil:
		ids, p.From = host.IDs, host.Addr
	}
	if host != nil && p.From != host.Addr {
		ids, p.Excluded = exclude(ids, host)
	} else if host != nil {
		p.Excluded = slices.Clone(host.Excluded)
	}
	switch {
	case ids != nil && hasGiven && given.IDs == nil:
		// A count on a pool whose ids are known takes the first ones.
		n := min(int(given.Count), len(ids))
		p.Devices, p.From = ids[:n:n], "-resource"
	case ids != nil:
		p.Devices = ids
	case hasGiven && p.Env != "":
		p.Devices, p.From = firstIDs(given.Count), "-resource"
	case hasGiven:
		p.Size, p.From = given.Count, "-resource"
		return p
	case name == "cpu" && src.CPUs > 0:
		p.Size, p.From = int64(src.CPUs), "this machine"
		return p
	case name == "mem_mb" && src.MemMB > 0:
		p.Size, p.From = src.MemMB, "this machine"
		return p
	default:
		return nil
	}
	p.Size = int64(len(p.Devices))
	return p
}

// exclude drops from ids those the host reports unhealthy or does not list.
func exclude(ids IDs, host *Host) (IDs, []Exclusion) {
	why := map[int]string{}
	for _, e := range host.Excluded {
		why[e.ID] = e.Why
	}
	kept := IDs{}
	var out []Exclusion
	for _, id := range ids {
		switch {
		case why[id] != "":
			out = append(out, Exclusion{ID: id, Why: why[id]})
		case !host.IDs.Contains(id):
			out = append(out, Exclusion{ID: id, Why: "not listed by npu-smi on " + host.Addr})
		default:
			kept = append(kept, id)
		}
	}
	return kept, out
}

// The bounds of -resource: a count at most MaxCount, and at most
// MaxDevices ids in a device pool (as in one range of ParseIDs). A count
// given for a pool block with env makes its first MaxDevices ids at most.
const (
	MaxCount   = 1_000_000_000_000
	MaxDevices = 1 << 16
)

func firstIDs(n int64) IDs {
	ids := IDs{}
	for i := range min(n, MaxDevices) {
		ids = append(ids, int(i))
	}
	return ids
}

// ParseResource reads a -resource value: NAME=N for a count, NAME=IDS for
// device ids ("npu=0-7", "npu=4,5,6,7"; one id is written "npu=5-5").
func ParseResource(s string) (string, Given, error) {
	name, val, ok := strings.Cut(s, "=")
	name, val = strings.TrimSpace(name), strings.TrimSpace(val)
	bad := fmt.Errorf("-resource %q: write -resource name=N for a count (npu=8) or name=IDS for device ids (npu=0-7, npu=4,5,6,7)", s)
	if !ok || name == "" || val == "" {
		return "", Given{}, bad
	}
	if n, err := strconv.ParseInt(val, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case n < 0:
			return "", Given{}, bad
		case DefaultEnv(name) != "" && n > MaxDevices:
			return "", Given{}, fmt.Errorf("-resource %s=%s: the %s pool holds at most %d devices", name, val, name, MaxDevices)
		case n > MaxCount || err != nil:
			return "", Given{}, fmt.Errorf("-resource %s=%s: a count is at most %d", name, val, int64(MaxCount))
		}
		return name, Given{Count: n}, nil
	}
	ids, err := ParseIDs(val)
	if err != nil {
		return "", Given{}, fmt.Errorf("-resource %s: %w", name, err)
	}
	return name, Given{IDs: ids, Count: int64(len(ids))}, nil
}
