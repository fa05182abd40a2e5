package plan

import "strings"

// Action is what a node needs. The symbol is the value.
type Action rune

const (
	NoOp    Action = ' '
	Create  Action = '+'
	Rebuild Action = '~'
	Maybe   Action = '?'
	Restore Action = '<'
	Repair  Action = '!'
	Start   Action = '^'
	Forget  Action = '-'
	// Fetch: a remote cache holds a result with the node's key; it is
	// downloaded, verified and linked instead of built.
	Fetch Action = '↓'
)

// Word names the action in plan text and JSON.
func (a Action) Word() string {
	switch a {
	case NoOp:
		return "no-op"
	case Create:
		return "create"
	case Rebuild:
		return "rebuild"
	case Maybe:
		return "maybe"
	case Restore:
		return "restore"
	case Repair:
		return "repair"
	case Start:
		return "start"
	case Forget:
		return "forget"
	case Fetch:
		return "fetch"
	}
	return "unknown"
}

// Runs reports whether the action runs the node's command.
func (a Action) Runs() bool { return a == Create || a == Rebuild || a == Repair || a == Start }

// Reason explains one cause of an action.
type Reason struct {
	Kind    ReasonKind `json:"kind"`              // one of the Reason* constants
	Subject string     `json:"subject,omitempty"` // the attribute, file, node, variable or fact
	// Path is where inside a structured attribute value the change is
	// (featurize.max_features), when the value is compared path by path.
	Path   string `json:"path,omitempty"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
	Detail string `json:"detail,omitempty"`
}

func (r Reason) String() string {
	if s, ok := r.changeText(); ok {
		return s
	}
	if s, ok := r.actionText(); ok {
		return s
	}
	if r.Detail != "" {
		return r.Detail
	}
	return string(r.Kind) + " " + r.Subject
}

// changeText says what changed of the node's key, for the reasons that
// compare its key lines.
func (r Reason) changeText() (string, bool) {
	switch r.Kind {
	case ReasonNew:
		return "never built", true
	case ReasonAttribute:
		if r.Path != "" {
			return "attribute " + r.Subject + " changed: " + r.Path + ": " + r.Old + " → " + r.New, true
		}
		return "attribute " + r.Subject + " changed: " + r.Old + " → " + r.New, true
	case ReasonVariable:
		if strings.HasPrefix(r.New, "(sensitive") {
			return r.Subject + " changed (sensitive; its value is not shown), read by " + r.Detail, true
		}
		return r.Subject + " changed: " + r.Old + " → " + r.New + " (read by " + r.Detail + ")", true
	case ReasonFileRead:
		switch {
		case r.Old == "":
			return "now reads file " + r.Subject, true
		case r.New == "":
			return "no longer reads file " + r.Subject, true
		}
		return "file " + r.Subject + ", read by the configuration, changed: " + r.Old + " → " + r.New, true
	case ReasonPin:
		return "pin " + r.Subject + " in kiln.lock.hcl changed: " + r.Old + " → " + r.New, true
	case ReasonInput:
		return "input " + r.Subject + " changed: " + r.Old + " → " + r.New, true
	case ReasonInputAdded:
		return "input " + r.Subject + " added", true
	case ReasonInputRemoved:
		return "input " + r.Subject + " removed", true
	case ReasonUpstream:
		return "upstream " + r.Subject + " changed: " + r.Old + " → " + r.New, true
	case ReasonUpstreamAdded:
		return "now depends on " + r.Subject, true
	case ReasonUpstreamRemoved:
		return "no longer depends on " + r.Subject, true
	case ReasonUpstreamRuns:
		return "upstream " + r.Subject + " will run; decided once its digest is known", true
	case ReasonUpstreamAlsoRuns:
		return "and upstream " + r.Subject + " will run", true
	case ReasonEnv:
		return "environment variable " + r.Subject + " changed", true
	case ReasonFact:
		return r.Subject + " changed: " + r.Old + " → " + r.New, true
	case ReasonProgram:
		return "program " + r.Subject + " changed: " + r.Old + " → " + r.New, true
	case ReasonNodeKind:
		return "kind " + r.Subject + " changed: " + r.Old + " → " + r.New, true
	case ReasonFormat:
		return "kiln's key format changed: " + r.Old + " → " + r.New, true
	case ReasonRun:
		if r.Subject == "" {
			return "kiln now seals every run (strict shell, reproducible environment): built by an earlier kiln, it runs once again", true
		}
		return "run " + r.Subject + " changed: " + r.Old + " → " + r.New, true
	}
	return "", false
}

// actionText says why the node runs, or what it waits for, for the
// reasons that are not a change of its key lines.
func (r Reason) actionText() (string, bool) {
	switch r.Kind {
	case ReasonFailed:
		return "failed last time: " + r.Detail, true
	case ReasonReplace:
		return "replacement requested with -replace", true
	case ReasonAlwaysRun:
		return "always_run is set", true
	case ReasonDrift:
		return "outputs changed outside kiln: " + r.Detail, true
	case ReasonResume:
		if r.Detail == "" {
			return "an interrupted run of the same key will resume", true
		}
		return "an interrupted run of the same key will resume in " + r.Detail, true
	case ReasonLeftRunning:
		if strings.Contains(r.Subject, ",") {
			return "still running as processes " + r.Subject + " of an apply that died; apply stops them first", true
		}
		return "still running as process " + r.Subject + " of an apply that died; apply stops it first", true
	case ReasonRestore:
		return "an earlier result with this key is in the store", true
	case ReasonService:
		return r.Detail, true
	case ReasonFrom:
		if r.Old == "" {
			return "made from " + r.Subject + " now", true
		}
		return "the file it is made from changed: " + r.Subject + " " + r.Old + " → " + r.New, true
	case ReasonTemp:
		if r.Detail == "maybe" {
			return "temp: its result was removed after use; rebuilt if " + r.Subject + " runs", true
		}
		return "temp: its result was removed after use; " + r.Subject + " needs it", true
	case ReasonProtected:
		return "protected: this would replace its result; kiln apply refuses unless -replace '" + r.Subject + "' is given", true
	case ReasonKey:
		if r.Detail == "" {
			return "key changed", true
		}
		return r.Detail, true
	case ReasonDynamic:
		s := "its instances are known once " + r.Subject + " has run"
		if r.Detail != "" {
			s += " (" + r.Detail + ")"
		}
		return s, true
	case ReasonCache:
		return "a result with this key is in the remote cache " + r.Subject + r.Detail, true
	case ReasonSigned:
		return "its record is signed by " + r.Subject + ", a key trusted_keys names", true
	case ReasonSlurmJob:
		if r.New == SlurmJobEnded {
			return "Slurm job " + r.Subject + " ended " + r.Detail + "; apply takes its outcome instead of submitting it again", true
		}
		return "running as Slurm job " + r.Subject + " (" + r.Detail + "); apply waits for it instead of submitting it again", true
	case ReasonUnpinned:
		return "not pinned: " + r.Detail, true
	}
	return "", false
}
