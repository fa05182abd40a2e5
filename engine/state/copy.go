package state

import "maps"

// Snapshot returns a copy of the state whose maps are not shared, for
// readers that must not see an apply's concurrent commits. Records
// themselves are shared: committed records are never modified in place.
func (s *State) Snapshot() *State {
	c := *s
	c.Records = maps.Clone(s.Records)
	c.History = maps.Clone(s.History)
	if c.Records == nil {
		c.Records = map[string]*Record{}
	}
	if c.History == nil {
		c.History = map[string]*Record{}
	}
	return &c
}
