// Package remotecache shares node results between hosts through an HTTP
// cache in Bazel's layout: GET/PUT/HEAD of /ac/KEY for a small result
// record and /cas/SHA256 for the content of each file (of each 16 MiB chunk
// of a file larger than hash.ChunkSize, whose digest is chunked; so every
// blob's address is the SHA-256 of its bytes). Any server of that
// layout works: nginx with WebDAV PUT, bazel-remote (started with
// --disable_http_ac_validation, since its action-cache entries are kiln's
// JSON records, not REAPI ActionResult messages), or a plain object store
// behind a proxy.
//
// A Record names a node's key, its digest and the manifest of its output
// tree (path, type, exec bit, size, SHA-256 per file; symlink targets;
// folders). Push uploads every blob the server does not already have (HEAD
// first), streaming each file from disk, and PUTs the record last, so a
// reader never finds a record whose blobs are missing. Fetch downloads into
// a fresh folder with a bounded number of parallel requests, streaming each
// blob to its file while hashing it; a connection dropped mid-blob is
// resumed with a Range request (or restarted when the server ignores it)
// up to Client.Retries times. Every file's size and SHA-256, and then the
// tree digest of the whole manifest, are checked before Fetch returns: a
// corrupt or truncated blob is an error and the caller never links the
// folder. Paths are checked too: a record whose paths leave the folder,
// or pass through one of its own symlinks, is refused before anything is
// written.
//
// Credentials come from the environment only (KILN_CACHE_TOKEN as a bearer
// token, or KILN_CACHE_USERNAME and KILN_CACHE_PASSWORD for basic auth) and
// are never part of a URL kiln keeps: New refuses a URL with user
// information. Errors that mean the server could not be reached at all are
// *UnreachableError, so callers can build locally and say why.
//
// Locking: a Client is safe for concurrent use; it holds no mutable state
// besides its http.Client.
package remotecache
