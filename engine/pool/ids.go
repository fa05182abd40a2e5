package pool

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// IDs is a set of device ids, ascending, without duplicates.
type IDs []int

// NewIDs returns the ids as a set; it refuses negative and repeated ids.
func NewIDs(ids ...int) (IDs, error) {
	out := slices.Clone(ids)
	slices.Sort(out)
	for i, id := range out {
		if id < 0 {
			return nil, fmt.Errorf("device id %d is negative: ids are 0 or more", id)
		}
		if i > 0 && out[i-1] == id {
			return nil, fmt.Errorf("device %d is listed twice", id)
		}
	}
	return IDs(out), nil
}

// ParseIDs reads ids written as ranges and single ids separated by commas:
// "0-7", "0-3,6", "4,5,6,7", "5-5".
func ParseIDs(s string) (IDs, error) {
	var ids []int
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%q: an empty item; write ids as 0-7 or 0,1,2,3", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("%q: %q is not a device id; write ids as 0-7 or 0,1,2,3", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("%q: %q is not a range from a low id to a higher one, such as 0-3", s, part)
			}
		}
		if b-a > 1<<16 {
			return nil, fmt.Errorf("%q: the range %q is too large", s, part)
		}
		for id := a; id <= b; id++ {
			ids = append(ids, id)
		}
	}
	set, err := NewIDs(ids...)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	return set, nil
}

// String writes the ids compactly, runs as ranges: "0-2,4-7".
func (s IDs) String() string {
	if len(s) == 0 {
		return "none"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// List writes every id, comma-separated: the form of
// ASCEND_RT_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES.
func (s IDs) List() string {
	parts := make([]string, len(s))
	for i, id := range s {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ",")
}

// Contains reports whether id is in the set.
func (s IDs) Contains(id int) bool {
	_, ok := slices.BinarySearch(s, id)
	return ok
}

// Ints returns the ids as a plain slice.
func (s IDs) Ints() []int { return slices.Clone([]int(s)) }

// HeldText writes the devices a node holds, per pool, as people read them:
// "npu 0-3", "gpu 1, npu 0-3".
func HeldText(held map[string][]int) string { return strings.Join(HeldList(held), ", ") }

// HeldList is HeldText's parts, one per pool, sorted: ["gpu 1", "npu 0-3"].
func HeldList(held map[string][]int) []string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(held)) {
		parts = append(parts, name+" "+IDs(held[name]).String())
	}
	return parts
}
