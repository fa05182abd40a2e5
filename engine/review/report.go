package review

import (
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/plan"
)

// FormatVersion versions the JSON report schema (docs/review.md). Additions
// keep the version; removals or changes of meaning bump it.
const FormatVersion = "1"

// Report is the impact of a pipeline change: the model -json prints and
// the text and Markdown views render.
type Report struct {
	FormatVersion string   `json:"format_version"`
	KilnVersion   string   `json:"kiln_version"`
	Pipeline      string   `json:"pipeline"` // file or folder, relative to the top of the repository
	Files         []string `json:"files"`    // its files at the new revision, relative to the top
	Old           Revision `json:"old"`
	New           Revision `json:"new"`
	Summary       Summary  `json:"summary"`
	// Variables are the pipeline variables whose values differ, by name:
	// they explain attribute changes of the nodes that use them.
	Variables []VariableChange `json:"variables"`
	Changed   []Changed        `json:"changed"` // new-side dependency order
	Added     []Node           `json:"added"`   // new-side dependency order
	Removed   []Node           `json:"removed"` // old-side dependency order
	Renamed   []Renamed        `json:"renamed"` // new-side dependency order
	// Resources are nodes whose resources changed: a cost change, not a
	// rebuild (resources do not enter keys).
	Resources []ResourceChange `json:"resources"`
	// KeyFiles are every file that enters a key at either version: inputs,
	// key files (patches, requirements) and files the configuration reads.
	KeyFiles    []KeyFile     `json:"key_files"`
	Invalidated []Invalidated `json:"invalidated"` // new-side dependency order
	Unresolved  []Unresolved  `json:"unresolved"`  // by address
	Cost        Cost          `json:"cost"`
	// Graph is a Mermaid flowchart of the nodes that would rerun and the
	// edges between them, coloured by why they rerun.
	Graph string `json:"mermaid"`
}

// Revision is one version of the pipeline.
type Revision struct {
	Name        string `json:"name"`             // as given, e.g. "HEAD~1"; "working tree"
	Commit      string `json:"commit,omitempty"` // full commit id; empty for the working tree
	WorkingTree bool   `json:"working_tree"`
}

// WorkingTreeName names the working tree as a revision.
const WorkingTreeName = "working tree"

// Label is how messages name the revision: "HEAD~1 (1a2b3c4d5e6f)".
func (r Revision) Label() string {
	if r.WorkingTree {
		return "the " + WorkingTreeName
	}
	if r.NamedByCommit() {
		return human.Short(r.Commit)
	}
	return r.Name + " (" + human.Short(r.Commit) + ")"
}

// NamedByCommit reports whether the name is the commit id or a prefix of
// it, so it need not be shown twice.
func (r Revision) NamedByCommit() bool {
	return r.Commit == "" || len(r.Name) >= 7 && strings.HasPrefix(r.Commit, r.Name)
}

// Summary counts the nodes in each part of the report.
type Summary struct {
	Changed     int `json:"changed"`
	Invalidated int `json:"invalidated"`
	Added       int `json:"added"`
	Removed     int `json:"removed"`
	Renamed     int `json:"renamed"`
	Resources   int `json:"resources"` // nodes whose resources changed
	Unresolved  int `json:"unresolved"`
	Rerun       int `json:"rerun"` // changed + invalidated + added
}

// Node names a node.
type Node struct {
	Address string `json:"address"`
	Kind    string `json:"kind"`
}

// Changed is a node in both versions whose own configuration, inputs or
// dependencies differ.
type Changed struct {
	Node
	Changes []plan.ReasonJSON `json:"changes"`
}

// Invalidated is a node that does not change itself but depends, directly
// or not, on one that changes or is added.
type Invalidated struct {
	Node
	Because []string `json:"because"` // its direct upstream nodes that rerun
}

// Unresolved is a node whose key lines could not be made at one revision,
// so it is not compared (an input file that is not in git, an expression
// that fails).
type Unresolved struct {
	Node
	Revision string `json:"revision"`
	Error    string `json:"error"`
}

// Cost estimates the work of rerunning every changed, added and invalidated
// node, from the durations recorded in the working tree's state.
type Cost struct {
	State   string          `json:"state"`   // the state folder read, relative to the top of the repository
	Seconds float64         `json:"seconds"` // sum of the recorded durations
	Known   int             `json:"known"`   // nodes with a recorded duration
	Unknown []string        `json:"unknown"` // nodes never run successfully: not in the sum
	Hours   []ResourceHours `json:"resource_hours"`
	Nodes   []NodeCost      `json:"nodes"` // every node that would rerun, in dependency order
	// Restores counts the nodes whose result for the new version is in
	// the store: applying it restores them, at no cost.
	Restores int `json:"restores"`
}

// ResourceHours is the recorded hours of the rerun nodes weighted by how
// much of a resource each declares (NPU-hours for resources = { npu = 8 }).
type ResourceHours struct {
	Resource string  `json:"resource"`
	Hours    float64 `json:"hours"`
}

// NodeCost is the recorded cost of one node that would rerun.
type NodeCost struct {
	Address string `json:"address"`
	// Seconds is the duration of its last successful run; null when it
	// never ran.
	Seconds   *float64         `json:"last_duration_s"`
	Resources map[string]int64 `json:"resources,omitempty"`
	// Restore says that the store has its result for the new version:
	// it is restored, not run, and Seconds is 0.
	Restore bool `json:"restore,omitempty"`
}

// HasChanges reports whether anything would rerun or leave the pipeline.
func (r *Report) HasChanges() bool {
	s := r.Summary
	return s.Changed+s.Invalidated+s.Added+s.Removed+s.Renamed+s.Resources > 0
}
