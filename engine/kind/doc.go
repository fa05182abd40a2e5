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
// Optional behaviour is expressed as small interfaces a Kind may implement
// (Prober, Verifier, KeyFiles, Service), after io.WriterTo and friends: the
// engine asks with a type assertion and falls back to a generic default.
//
// Kinds never print. They write a node's output to Build.Log and report facts
// through return values; the engine renders them.
package kind
