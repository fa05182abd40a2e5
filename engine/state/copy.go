package state

// Snapshot returns a copy of the state whose record map is not shared, for
// readers that must not see an apply's concurrent commits. Records
// themselves are shared: committed records are never modified in place.
func (s *State) Snapshot() *State {
	c := *s
	c.Records = make(map[string]*Record, len(s.Records))
	for k, v := range s.Records {
		c.Records[k] = v
	}
	return &c
}
