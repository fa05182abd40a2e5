// Package kind is the contract between kiln's engine and its node kinds.
//
// Every block type of the language other than variable, locals and output is a
// Kind: exec, git_repo, fetch, python_env, toolchain, service, host. The engine
// owns everything generic — decoding the meta-arguments (for_each, count,
// depends_on, inputs, resources, timeout, retries, ...), evaluating
// expressions, keys, the store, state and scheduling. A Kind owns only what is
// particular to it: the schema of its own attributes (Spec), the attributes it
// exports to other nodes, and how it builds, verifies, probes or stops.
//
// Optional behaviour is expressed as small interfaces a Kind may implement,
// after io.WriterTo and friends: the engine asks with a type assertion and
// falls back to a generic default. They are Prober (reads the machine at plan
// time), Verifier (checks its own results for drift), KeyFiles (files whose
// contents enter the key), Service (the result is a running process),
// Pinner and PinResolver (values kiln.lock.hcl keeps), Unpinned (what a run
// will resolve and pin, for the plan's reasons), DeviceReporter (devices
// its probe finds, such as a host's NPUs, with their ids), Portable (builds in
// a Slurm job), Shareable (results may go through a remote cache), Checker
// (errors visible in the configuration alone), Documented (its schema as
// data, for kiln help), ProgramRunner (the program it runs is found and
// keyed at plan time), ProgressReporter (how far its transfers are, for
// the live status) and Collector (files of its own in the state folder that
// kiln gc removes, such as a fetch's stale partial downloads). IsService, IsPortable and IsShareable answer for a
// Kind; the engine never asks a kind's Name what it can do.
//
// A kind reads its decoded configuration with engine/kind/attr, builds its
// digest as hash.Key lines, and takes its locks (engine/filelock), output
// tails (engine/proc) and byte sizes (engine/human) from the same toolkit
// as the engine, so every kind reads, hashes and reports the same way.
//
// Kinds never print. They write a node's output to Build.Log and report facts
// through return values; the engine renders them.
package kind
