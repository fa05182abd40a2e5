package plan

// ReasonKind says what caused an action; Reason.String turns it, with the
// reason's other fields, into the sentence a plan prints. The values are
// written in plan -json, kiln diff -json and run history, so a value never
// changes meaning; docs/plan-json.md lists every one (a test checks it).
type ReasonKind string

// The reason kinds, sorted by name.
const (
	ReasonAlwaysRun        ReasonKind = "always_run"         // always_run is set
	ReasonAttribute        ReasonKind = "attribute"          // an attribute's value changed (Path: where inside a structured value)
	ReasonCache            ReasonKind = "cache"              // the remote cache Subject holds a result with the node's key
	ReasonDrift            ReasonKind = "drift"              // the outputs changed outside kiln
	ReasonDynamic          ReasonKind = "dynamic"            // instances are known once the nodes in Subject have run
	ReasonEnv              ReasonKind = "env"                // an environment variable the node reads changed
	ReasonFact             ReasonKind = "fact"               // a fact of the machine (a host's driver, a toolchain) changed
	ReasonFailed           ReasonKind = "failed"             // the last run failed (Detail: its error)
	ReasonFileRead         ReasonKind = "file_read"          // a file the configuration reads (file(), templatefile()) changed, appeared or went
	ReasonFormat           ReasonKind = "format"             // kiln's key format changed
	ReasonFrom             ReasonKind = "from"               // the file under an upstream result that a dynamic instance is made from changed
	ReasonInput            ReasonKind = "input"              // an input file changed
	ReasonInputAdded       ReasonKind = "input_added"        // an input file was added
	ReasonInputRemoved     ReasonKind = "input_removed"      // an input file was removed
	ReasonKey              ReasonKind = "key"                // the key changed and no key line says why (a record without key lines)
	ReasonLeftRunning      ReasonKind = "left_running"       // processes of the node's run that an apply which died left still run (Subject: their pids)
	ReasonNew              ReasonKind = "new"                // never built
	ReasonNodeKind         ReasonKind = "kind"               // the node's kind or its version changed
	ReasonPin              ReasonKind = "pin"                // a pin in kiln.lock.hcl changed
	ReasonProtected        ReasonKind = "protected"          // the node is protected and this would replace its result
	ReasonProgram          ReasonKind = "program"            // the program the command runs changed
	ReasonReplace          ReasonKind = "replace"            // -replace names the node
	ReasonRestore          ReasonKind = "restore"            // an earlier result with the key is in the store
	ReasonRun              ReasonKind = "run"                // how the node's processes run changed: its shell, the reproducible environment (Subject: which; empty: runs are sealed since the record was made)
	ReasonResume           ReasonKind = "resume"             // an interrupted run with the same key is resumed (Detail: its run folder)
	ReasonService          ReasonKind = "service"            // a service is down (Detail: what its probe found)
	ReasonSigned           ReasonKind = "signed"             // the remote cache's record of the result is signed by Subject, a key trusted_keys names
	ReasonSlurmJob         ReasonKind = "slurm_job"          // a Slurm job submitted earlier builds the key (Subject: its id)
	ReasonTemp             ReasonKind = "temp"               // a temp result removed after use is needed again (Subject: by whom)
	ReasonUnpinned         ReasonKind = "unpinned"           // the run resolves and pins what the configuration leaves open
	ReasonVariable         ReasonKind = "variable"           // a variable an attribute reads changed (Subject: var.NAME; Detail: the attributes)
	ReasonUpstream         ReasonKind = "upstream"           // an upstream node's result changed
	ReasonUpstreamAdded    ReasonKind = "upstream_added"     // the node depends on a new upstream
	ReasonUpstreamAlsoRuns ReasonKind = "upstream_also_runs" // a rebuilt node's upstream runs as well
	ReasonUpstreamRemoved  ReasonKind = "upstream_removed"   // the node no longer depends on an upstream
	ReasonUpstreamRuns     ReasonKind = "upstream_runs"      // a maybe: decided once the upstream's digest is known
)

// SlurmJobEnded is the New of a ReasonSlurmJob whose job has ended: apply
// takes its outcome (its result, or its failure) instead of waiting.
const SlurmJobEnded = "ended"
