package config

import (
	"slices"

	"github.com/kilnbuild/kiln/engine/addr"
)

// nodeSet is a set of addresses in the order they were added: a short
// list while it is small, as it is for most nodes' dependencies, and a map
// beside it once it is not.
type nodeSet struct {
	list  []addr.Node
	index map[addr.Node]bool // nil while list is short
}

// nodeSetShort is how long list grows before the map is made.
const nodeSetShort = 16

func (s *nodeSet) has(a addr.Node) bool {
	if s.index != nil {
		return s.index[a]
	}
	return slices.Contains(s.list, a)
}

func (s *nodeSet) add(a addr.Node) {
	if s.has(a) {
		return
	}
	s.list = append(s.list, a)
	switch {
	case s.index != nil:
		s.index[a] = true
	case len(s.list) > nodeSetShort:
		s.index = make(map[addr.Node]bool, 2*len(s.list))
		for _, b := range s.list {
			s.index[b] = true
		}
	}
}
