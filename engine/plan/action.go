package plan

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
	Kind    string `json:"kind"`              // new, attribute, input, upstream, env, fact, kind, failed, replace, always_run, drift, resume, upstream_runs, upstream_also_runs, service, dynamic, cache, slurm_job, unpinned, from, temp, protected
	Subject string `json:"subject,omitempty"` // the attribute, file, node, variable or fact
	// Path is where inside a structured attribute value the change is
	// (featurize.max_features), when the value is compared path by path.
	Path   string `json:"path,omitempty"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
	Detail string `json:"detail,omitempty"`
}

func (r Reason) String() string {
	switch r.Kind {
	case "new":
		return "never built"
	case "attribute":
		if r.Path != "" {
			return "attribute " + r.Subject + " changed: " + r.Path + ": " + r.Old + " → " + r.New
		}
		return "attribute " + r.Subject + " changed: " + r.Old + " → " + r.New
	case "file_read":
		switch {
		case r.Old == "":
			return "now reads file " + r.Subject
		case r.New == "":
			return "no longer reads file " + r.Subject
		}
		return "file " + r.Subject + ", read by the configuration, changed: " + r.Old + " → " + r.New
	case "pin":
		return "pin " + r.Subject + " in kiln.lock.hcl changed: " + r.Old + " → " + r.New
	case "input":
		return "input " + r.Subject + " changed: " + r.Old + " → " + r.New
	case "input_added":
		return "input " + r.Subject + " added"
	case "input_removed":
		return "input " + r.Subject + " removed"
	case "upstream":
		return "upstream " + r.Subject + " changed: " + r.Old + " → " + r.New
	case "upstream_added":
		return "now depends on " + r.Subject
	case "upstream_removed":
		return "no longer depends on " + r.Subject
	case "upstream_runs":
		return "upstream " + r.Subject + " will run; decided once its digest is known"
	case "upstream_also_runs":
		return "and upstream " + r.Subject + " will run"
	case "env":
		return "environment variable " + r.Subject + " changed"
	case "fact":
		return r.Subject + " changed: " + r.Old + " → " + r.New
	case "program":
		return "program " + r.Subject + " changed: " + r.Old + " → " + r.New
	case "kind":
		return "kind " + r.Subject + " changed: " + r.Old + " → " + r.New
	case "format":
		return "kiln's key format changed: " + r.Old + " → " + r.New
	case "failed":
		return "failed last time: " + r.Detail
	case "replace":
		return "replacement requested with -replace"
	case "always_run":
		return "always_run is set"
	case "drift":
		return "outputs changed outside kiln: " + r.Detail
	case "resume":
		return "an interrupted run with the same key is resumed"
	case "restore":
		return "an earlier result with this key is in the store"
	case "service":
		return r.Detail
	case "blocked":
		return "cannot run here: " + r.Detail
	case "from":
		if r.Old == "" {
			return "made from " + r.Subject + " now"
		}
		return "the file it is made from changed: " + r.Subject + " " + r.Old + " → " + r.New
	case "temp":
		if r.Detail == "maybe" {
			return "temp: its result was removed after use; rebuilt if " + r.Subject + " runs"
		}
		return "temp: its result was removed after use; " + r.Subject + " needs it"
	case "protected":
		return "protected: this would replace its result; kiln apply refuses unless -replace '" + r.Subject + "' is given"
	case "dynamic":
		s := "its instances are known once " + r.Subject + " has run"
		if r.Detail != "" {
			s += " (" + r.Detail + ")"
		}
		return s
	case "cache":
		return "a result with this key is in the remote cache " + r.Subject + r.Detail
	case "slurm_job":
		return "running as Slurm job " + r.Subject + r.Detail + "; apply waits for it instead of submitting it again"
	case "unpinned":
		return "not pinned: " + r.Detail
	}
	if r.Detail != "" {
		return r.Detail
	}
	return r.Kind + " " + r.Subject
}
