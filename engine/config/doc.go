// Package config loads a pipeline: it parses HCL, resolves variables, expands
// for_each and count into node instances, finds the references between nodes,
// and evaluates a node's configuration against the values other nodes have at
// that moment.
//
// A large HCL file is parsed in pieces, in parallel (parse.go): it is cut
// where a top-level block ends, and any doubt — a diagnostic in a piece, an
// argument set in two — means the whole file is parsed as one.
//
// Node blocks are decoded and scanned for references, and their instances'
// dependencies and meta-arguments resolved, in parallel (parallel.go): each
// item writes only what it owns, and every diagnostic keeps its place in
// the file's order.
//
// Once the blocks are scanned the load lets go of the syntax trees, which
// are most of a large pipeline's memory: each node block keeps its source
// bytes, and Block.Body parses them again the first time a node of the
// block is evaluated (reparse.go), into the same tree. The files keep their
// bytes and an outline of their blocks (outline.go), for diagnostics.
// ForgetBlock lets go of a block once none of its nodes is evaluated again.
//
// Loading is pure: it reads the pipeline's files and whatever files its
// expressions name (file, templatefile), and nothing else. Evaluation is split
// from loading because a node's configuration can only be evaluated once the
// values it references are known — at plan time from state, during apply once
// the upstream nodes finished. A Scope carries those values.
//
// A node whose expressions are literals, templates, lists of them and
// plain references (KIND.NAME.out, self.out, each.key, ...) is evaluated
// without HCL, straight from the values it names (direct.go); anything
// else, and anything that would not give exactly HCL's value, is left to
// HCL.
//
// Locals are evaluated lazily. A local that does not (transitively) reference
// a node is evaluated once and cached; one that does is evaluated again for each
// node that uses it, against that node's scope. Locals never become graph
// vertices of their own: a node that uses a local depends on every node the
// local references.
//
// References to node attributes: every node exports out (its stable output
// path) and digest (the hash of its last result), plus its kind's exports.
// A for_each block is a map of instance objects, a count block a tuple.
//
// Meta-arguments (resources, timeout, progress, ...) and the metrics block
// are the engine's, valid in every node block and taken out of the body
// before the kind sees it, so they never enter a node's key. They must be
// known when the pipeline loads.
//
// An index known at load time (exec.map[each.key], exec.c[count.index])
// names one instance: the edge goes to it alone, and the referring
// instance's evaluation sees only it (index.go). A whole-block reference
// depends on every instance. for_each = exec.map over another for_each
// block follows it, instance by instance (follow.go): static when that
// block's instances are known at load time, dynamic when they are not.
//
// fileset and glob_wildcards list folders; the listings are recorded with
// the files read, so the memo (engine/memo) notices a file that appears.
// Globbing uses github.com/bmatcuk/doublestar/v4, the matcher behind
// Terraform's fileset, so that ** and {a,b} mean exactly what Terraform users
// expect.
//
// Each evaluation records what it read from outside the pipeline's files:
// environment variables through env() and files through file(),
// templatefile(), filesha256() and fileexists(), with what it saw (a content
// digest, or whether the file was there); the pipeline keeps the first view
// of every file (FilesRead), for the memo (engine/memo). With
// Options.RecordReads each evaluation also lists its own reads, locals it
// uses included (Evaluated.FilesRead), for kiln diff; plan and apply do
// without, so the functions that read files are made once per pipeline. moved blocks (Moved) and the
// kiln settings block (strict_lock) are read here; the engine acts on them.
//
// Sensitive values carry SensitiveMark (variables declared sensitive, values
// read with env()), which keys and views honour; a sensitive variable's
// value also carries a mark naming the variable, and every evaluation of a
// node refuses it in a command (an attribute named command at any depth: a
// command line is visible to every user of the machine), with the env form
// to write instead (sensitive.go).
package config
