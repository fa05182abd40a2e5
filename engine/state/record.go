package state

import (
	"maps"
	"path/filepath"
	"slices"
	"time"
)

// Output is one in-place output of a node (declared with outputs = [...])
// and its digest.
type Output struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
}

// OutputPaths are the absolute paths of outs, a relative one taken from
// the pipeline folder root.
func OutputPaths(root string, outs []Output) []string {
	paths := make([]string, len(outs))
	for i, o := range outs {
		paths[i] = o.Path
		if !filepath.IsAbs(o.Path) {
			paths[i] = filepath.Join(root, o.Path)
		}
	}
	return paths
}

// Record is what kiln knows about one node.
type Record struct {
	Addr        string            `json:"addr"` // "exec.a", `exec.a["k"]`
	Kind        string            `json:"kind"`
	Key         string            `json:"key"` // hex
	KeyLines    Lines             `json:"key_lines"`
	Digest      string            `json:"digest"`          // hex
	Entry       string            `json:"entry,omitempty"` // the run folder holding the outputs, "KEY-RUN" (see Store)
	Outputs     []Output          `json:"outputs,omitempty"`
	Attrs       map[string]string `json:"attrs,omitempty"` // kind-specific values learned when built
	Started     time.Time         `json:"started"`
	Duration    time.Duration     `json:"duration_ns"` // of all its segments together
	Resources   map[string]int64  `json:"resources,omitempty"`
	Devices     map[string][]int  `json:"devices,omitempty"` // device ids the run held, per pool; never in the key
	Log         string            `json:"log,omitempty"`
	Host        string            `json:"host,omitempty"`
	KilnVersion string            `json:"kiln_version,omitempty"`
	// Segments are the stretches of work of a resumed result, in order
	// (Started is the first one's); empty for a result built in one go.
	Segments []Segment `json:"segments,omitempty"`
	// File is the pipeline file, relative to the pipeline folder, that
	// declares the node: an apply of another pipeline file sharing the
	// state folder leaves the record alone.
	File string `json:"file,omitempty"`
	// Vars are the pipeline variables its configuration read and their
	// values (a sensitive one only as its keyed hash), so that the next
	// plan can say which one changed; they are not in the key, whose
	// attribute lines hold their effect.
	Vars map[string]string `json:"vars,omitempty"`
	// Refs are the keys of the upstream results this result names (a path
	// into one, by its key or its stable link), found when it was
	// published (see package refs): a sealed run that reads this result
	// may read those too. Without RefsScanned (a result from an older
	// kiln, or too large to read twice) it is taken to name every result
	// it was built from.
	Refs        []string `json:"refs,omitempty"`
	RefsScanned bool     `json:"refs_scanned,omitempty"`
	// Failure is the last unsuccessful attempt, if the latest run failed;
	// the fields above keep the last good result.
	Failure *Failure `json:"failure,omitempty"`
}

// Failure describes an unsuccessful run of a node.
type Failure struct {
	Key      string    `json:"key"`
	Error    string    `json:"error"`
	ExitCode int       `json:"exit_code"`
	At       time.Time `json:"at"`
	Log      string    `json:"log,omitempty"`
	// Entry is the run folder the failed run left, kept for a resumable
	// node to resume in; empty when it was removed.
	Entry   string           `json:"entry,omitempty"`
	Devices map[string][]int `json:"devices,omitempty"` // device ids the failed run held, per pool
	// Segments are the runs made so far in Entry, the failed one last: a
	// resume adds its own and records them all with the result.
	Segments []Segment `json:"segments,omitempty"`
}

// Good reports whether the record holds a successful result.
func (r *Record) Good() bool { return r != nil && r.Digest != "" }

// clone returns a deep copy, so a committed record does not change when the
// caller keeps modifying its own value. The key lines are shared, capped so
// that an append copies them: no line of a key is changed in place once
// it is written (a restamped or renamed key is a copy), and they are most of
// a record's memory.
func (r *Record) clone() *Record {
	c := *r
	c.KeyLines = r.KeyLines[:len(r.KeyLines):len(r.KeyLines)]
	c.Outputs = slices.Clone(r.Outputs)
	c.Attrs = maps.Clone(r.Attrs)
	c.Resources = maps.Clone(r.Resources)
	c.Devices = cloneDevices(r.Devices)
	c.Segments = slices.Clone(r.Segments)
	c.Refs = slices.Clone(r.Refs)
	if r.Failure != nil {
		f := *r.Failure
		f.Devices = cloneDevices(r.Failure.Devices)
		f.Segments = slices.Clone(r.Failure.Segments)
		c.Failure = &f
	}
	return &c
}

func cloneDevices(m map[string][]int) map[string][]int {
	if m == nil {
		return nil
	}
	c := make(map[string][]int, len(m))
	for k, ids := range m {
		c[k] = slices.Clone(ids)
	}
	return c
}
