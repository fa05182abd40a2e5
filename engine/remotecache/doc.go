// Package remotecache shares node results between hosts through an HTTP
// cache in Bazel's layout: GET/PUT/HEAD of /ac/KEY for a node's
// action-cache entry and /cas/SHA256 for blobs: the content of each file
// (of each 16 MiB chunk of a file larger than hash.ChunkSize, whose digest
// is chunked; so every blob's address is the SHA-256 of its bytes). Any
// server of that layout works: nginx with WebDAV PUT, bazel-remote with
// its default validation, or a plain object store behind a proxy.
//
// The action-cache entry is a REAPI ActionResult (Bazel's Remote Execution
// API, build.bazel.remote.execution.v2; bazel.go, reapi.go, tree.go), so
// that a server which checks entries and keeps the blobs they name, as
// bazel-remote does, accepts kiln's and answers one only while every blob
// it names is there: output directory "out" is the result folder, as a
// Tree of every folder, symlink and file stored whole (digest, size, exec
// bit); output directory "kiln/chunks", when a file is larger than
// hash.ChunkSize, is a Tree of one folder of its chunks; output file
// "kiln/record.json" is kiln's Record, one more CAS blob. The messages are
// encoded by hand with protowire in their canonical form (the form whose
// digests REAPI clients compare), because kiln writes five small messages
// and reads two, and a generated type from the remote-apis protos would
// bring gRPC, genproto and a code generator for them; the tests decode
// what kiln writes with the protobuf library against the upstream
// definitions. An entry that is a JSON object is a Record itself, as kiln
// wrote them before, and is read as one.
//
// A Record names a node's key, its digest and the manifest of its output
// tree (path, type, exec bit, size, SHA-256 per file; symlink targets;
// folders). Push uploads every blob the server does not already have (HEAD
// first), streaming each file from disk, then the record and the Trees,
// and PUTs the ActionResult last, so a reader never finds an entry whose
// blobs are missing. Fetch downloads into a fresh folder with a bounded
// number of parallel requests, streaming each blob to its file while
// hashing it; a connection dropped mid-blob is resumed with a Range
// request (or restarted when the server ignores it) up to Client.Retries
// times. Every file's size and SHA-256, and then the tree digest of the
// whole manifest, are checked before Fetch returns: a corrupt or truncated
// blob is an error and the caller never links the folder. Paths are
// checked too: a record whose paths leave the folder, or pass through one
// of its own symlinks, is refused before anything is written.
//
// An ActionResult is read whole, at most 64 KiB (kiln's are a few hundred
// bytes). Records are read as a stream (decode.go): at most 4 MiB and 30,000
// entries, no string longer than 64 KiB, one file entry decoded at a time;
// Summary, for plans, stops where the file list begins. Every body sent or
// received is watched (meter.go): a transfer that waits on the server for
// Limits.Stall without a byte, or moves less than Limits.MinRate while it
// waits, is cut with a *SlowError, never retried.
//
// Records are signed as Nix signs its store paths (sign.go): a client with
// a Signer signs the fingerprint of each record it pushes (every field but
// the file list, which the tree digest stands for) with ed25519; a client
// with Trusted keys accepts only records one of them signed, and checks the
// signature before it reads the file list, which kiln writes last. The key
// that signed is Record.SignedBy. What is signed is the record, not the
// ActionResult, which holds only what follows from the record: Lookup
// reads the record blob it names (no more than the size it names, and
// checks the blob's size and SHA-256),
// verifies the record's signature, and then checks that the ActionResult
// names exactly the outputs kiln writes for that record (the same Trees,
// so the blobs the server keeps are the ones Fetch reads); Fetch reads
// only what the signed record lists. A JSON entry is verified the same
// way. Nothing else in a record is trusted by this package beyond what
// Check verifies; callers decide which of its attributes to keep.
//
// Credentials come from the environment only (KILN_CACHE_TOKEN as a bearer
// token, or KILN_CACHE_USERNAME and KILN_CACHE_PASSWORD for basic auth) and
// are never part of a URL kiln keeps: New refuses a URL with user
// information. Errors that mean the server could not be reached at all are
// *UnreachableError, answers kiln did not expect *StatusError (with the
// start of what the server said), so callers can build locally and say
// why.
//
// Locking: a Client is safe for concurrent use; its fields are set before
// it is used, and besides its http.Client it holds only a semaphore that
// bounds the records Lookup reads at once.
package remotecache
