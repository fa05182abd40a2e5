package pool

import (
	"fmt"
	"strconv"
	"strings"
)

// The facts a host node records about its NPU devices, and that FromFacts
// reads back: "devices" = "0-2,4-7" (the usable ids), "devices.excluded" =
// "3: health Warning; 5: health Alarm".
const (
	FactDevices  = "devices"
	FactExcluded = "devices.excluded"
)

// HostFacts writes a host's devices as facts.
func HostFacts(ids IDs, excluded []Exclusion) map[string]string {
	m := map[string]string{FactDevices: ""}
	if len(ids) > 0 {
		m[FactDevices] = ids.String()
	}
	if len(excluded) > 0 {
		parts := make([]string, len(excluded))
		for i, e := range excluded {
			parts[i] = fmt.Sprintf("%d: %s", e.ID, e.Why)
		}
		m[FactExcluded] = strings.Join(parts, "; ")
	}
	return m
}

// FromFacts reads a host's devices back from its facts (a probe's Facts or
// a build's Attrs); nil when the facts name no devices.
func FromFacts(addr string, facts map[string]string) *Host {
	h := &Host{Addr: addr}
	if s := facts[FactDevices]; s != "" {
		ids, err := ParseIDs(s)
		if err != nil {
			return nil
		}
		h.IDs = ids
	}
	for part := range strings.SplitSeq(facts[FactExcluded], "; ") {
		idText, why, ok := strings.Cut(part, ": ")
		id, err := strconv.Atoi(idText)
		if ok && err == nil {
			h.Excluded = append(h.Excluded, Exclusion{ID: id, Why: why})
		}
	}
	if len(h.IDs) == 0 && len(h.Excluded) == 0 {
		return nil
	}
	return h
}
