package sandbox

import (
	"cmp"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// ViewRoot is the folder under which a relocated run sees the pipeline
// folder, its own result, its upstreams' results and its temporary folder,
// the same on every host and in every checkout.
const ViewRoot = "/kiln"

// The places of a view, below ViewRoot.
const (
	ViewPipeline = ViewRoot + "/root"  // the pipeline folder (and .kiln inside it)
	ViewState    = ViewRoot + "/state" // the state folder, where it lies outside the pipeline folder
	ViewTemp     = ViewRoot + "/tmp"   // the run's private temporary folder
	ViewResults  = ViewRoot + "/out"   // ViewResults/KEY: the result of the node with that key
)

// ResultAt is where a relocated run sees the result built under key: its
// own run folder or an upstream's.
func ResultAt(key string) string { return ViewResults + "/" + key }

// View is where a relocated run sees the folders whose paths a tool could
// write into its result. Each Bind shows a host folder at a fixed place
// below ViewRoot, and the run's command line, environment and working
// folder name that place instead of the host's path, so two checkouts at
// different paths, on different hosts, give a command the same bytes.
type View struct {
	Binds []Bind `json:"binds"`
}

// Bind shows the host folder Source at At inside the run. Source and each
// of Aliases (another host path of the same folder, such as a node's
// stable .kiln/out link) are written as At wherever the run's command
// line, environment or working folder names them.
type Bind struct {
	Source  string   `json:"source"`
	At      string   `json:"at"`
	Aliases []string `json:"aliases,omitempty"`
	// Link shows Source at At by a symbolic link rather than a bind
	// mount: a fraction of the cost, for the many results a run reaches
	// only through other results (an upstream's upstreams, hundreds deep
	// in a layered DAG). A program that resolves links sees the host's
	// path there.
	Link bool `json:"link,omitempty"`
}

// Add shows source at at, also under aliases.
func (v *View) Add(source, at string, aliases ...string) {
	v.Binds = append(v.Binds, Bind{Source: source, At: at, Aliases: aliases})
}

// AddLink shows source at at by a symbolic link, also under aliases.
func (v *View) AddLink(source, at string, aliases ...string) {
	v.Binds = append(v.Binds, Bind{Source: source, At: at, Aliases: aliases, Link: true})
}

// name is one host path and the place a run sees it at.
type name struct{ host, at string }

// names are the host paths v rewrites, longest first, so the run folder
// inside the pipeline folder is written as its own place, not as a path
// below the pipeline's.
func (v *View) names() []name {
	var out []name
	for _, b := range v.Binds {
		out = append(out, name{b.Source, b.At})
		for _, a := range b.Aliases {
			out = append(out, name{a, b.At})
		}
	}
	slices.SortStableFunc(out, func(a, b name) int { return cmp.Compare(len(b.host), len(a.host)) })
	return out
}

// Seen is s with every host folder of v written as the place the run sees
// it at.
func (v *View) Seen(s string) string {
	if v == nil {
		return s
	}
	return seenAs(s, v.names())
}

// seenAs writes each host folder of names in s as its place, where s names
// that folder (see hash.ReplaceFolder) and not the folder above it: a path
// that leaves it by "/.." keeps the host's path, whose parent is what it
// means.
func seenAs(s string, names []name) string {
	for _, n := range names {
		if !strings.Contains(s, n.host) {
			continue
		}
		const up = "\x00up"
		s = strings.ReplaceAll(s, n.host+"/..", up)
		s = hash.ReplaceFolder(s, n.host, n.at)
		s = strings.ReplaceAll(s, up, n.host+"/..")
	}
	return s
}

// Host is the host path of a path the run saw: the reverse of Seen, for
// messages and traces. A path outside every place of v is returned as it
// is.
func (v *View) Host(path string) string {
	if v == nil || !within(path, ViewRoot) {
		return path
	}
	best := -1
	for i, b := range v.Binds {
		if within(path, b.At) && (best < 0 || len(b.At) > len(v.Binds[best].At)) {
			best = i
		}
	}
	if best < 0 {
		return path
	}
	// The host path the run was given for the folder: an upstream's
	// stable link rather than its run folder.
	b := v.Binds[best]
	host := b.Source
	if len(b.Aliases) > 0 {
		host = b.Aliases[0]
	}
	return filepath.Join(host, strings.TrimPrefix(path, b.At))
}

// sourcesBelow are the folders v shows that lie strictly below path.
func (v *View) sourcesBelow(path string) []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, b := range v.Binds {
		if b.Source != path && within(b.Source, path) {
			out = append(out, b.Source)
		}
	}
	return out
}

// rewrite makes cmd name the places of v: its program, arguments,
// environment values and working folder.
func (v *View) rewrite(cmd *exec.Cmd) {
	names := v.names()
	seen := func(s string) string { return seenAs(s, names) }
	cmd.Path = seen(cmd.Path)
	for i, a := range cmd.Args {
		cmd.Args[i] = seen(a)
	}
	for i, kv := range cmd.Env {
		if k, val, ok := strings.Cut(kv, "="); ok {
			cmd.Env[i] = k + "=" + seen(val)
		}
	}
	if cmd.Dir != "" {
		cmd.Dir = seen(cmd.Dir)
	}
}

// KeyLine is the line of a node's key that says its run sees the fixed
// places of a view: what a tool writes of its paths depends on it.
func KeyLine() hash.Line {
	return hash.Line{Label: "run", Subject: "paths", Value: ViewPipeline + " (the pipeline folder), " + ResultAt("KEY") + " (each result)"}
}
