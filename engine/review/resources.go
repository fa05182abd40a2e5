package review

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ResourceChange is a node whose declared resources differ between the
// versions. Resources do not enter keys: the change costs (NPU-hours,
// scheduling), it does not rebuild.
type ResourceChange struct {
	Address string           `json:"address"`
	Old     map[string]int64 `json:"old"`
	New     map[string]int64 `json:"new"`
	Message string           `json:"message"`
}

func resourceChange(address string, old, cur map[string]int64) (ResourceChange, bool) {
	if maps.Equal(old, cur) {
		return ResourceChange{}, false
	}
	rc := ResourceChange{Address: address, Old: orEmpty(old), New: orEmpty(cur)}
	rc.Message = "resources changed: " + ResourcesText(old) + " → " + ResourcesText(cur) + " (a cost change, not a rebuild)"
	return rc, true
}

func orEmpty(m map[string]int64) map[string]int64 {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

// ResourcesText writes resources as "cpu=1, npu=8", "(none)" when empty.
func ResourcesText(m map[string]int64) string {
	if len(m) == 0 {
		return "(none)"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+"="+strconv.FormatInt(m[k], 10))
	}
	return strings.Join(parts, ", ")
}
