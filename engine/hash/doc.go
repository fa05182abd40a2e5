// Package hash computes kiln's two identities of a node, after Go's build
// cache: the key (a Key of labelled lines, salted with FormatVersion) and the
// digest of what a node produced (Tree, a Merkle hash over a file, a symlink
// or a folder).
//
// A key line is a typed Line (label, subject, value, note), kept and stored
// as those fields. It is hashed as the text "label subject value", one
// logical line per physical line: a value (or label) that contains a control
// character, is not valid UTF-8 or starts with a double quote is written
// strconv.Quote'd, so no value can forge a second line or collide with
// another value. The note (the address of the upstream a dep line's digest
// belongs to) is shown after " # " and never hashed, so a name never enters
// a key.
// Node kinds build their digests as Keys too (a toolchain's captured
// variables, a checkout's commit and patches), so one escaping rule guards
// every labelled hash; ReplaceFolder writes the state, pipeline and output
// folders as $KILN_STATE, $KILN_ROOT and $KILN_OUT in them, so they do not
// depend on where the pipeline lives. FileSum is a file's plain SHA-256 (a
// download's checksum).
//
// A tree digest is the SHA-256 of one line per entry, sorted by relative
// slash-separated path in byte order; the root itself contributes no line:
//
//	d <rel>                          a folder (empty folders count)
//	f <rel> <x|-> <size> <sha256>    a regular file
//	l <rel> <target>                 a symlink, not followed
//
// The <sha256> of a file is the SHA-256 of its content when it holds at most
// ChunkSize (16 MiB) bytes. A larger file is read in chunks of ChunkSize
// bytes (the last one shorter), hashed in parallel, and its digest is the
// SHA-256 of the text
//
//	chunks <size> <ChunkSize>
//	<sha256 of chunk 1>
//	...
//
// one line per chunk, each ending in a newline (File, Content and Tree agree
// on it). Key format kiln-key-3 and stat cache version 2 introduced chunked
// digests: keys and cached digests of earlier versions are never compared
// with them. Chunks are read with a hint to the kernel to read the next one
// ahead, so reading overlaps hashing.
//
// A root that is a single file or symlink is one line with rel ".". Paths
// and targets follow the same quoting rule as key values, and in symlink
// lines a path containing a space is quoted too, so that "l a b c" cannot mean
// both a -> "b c" and "a b" -> c. Sockets, devices and fifos are errors.
//
// Results are hashed so, their symlinks never followed: a virtualenv is
// full of links to the interpreter, and what a result is must not depend on
// files outside it; store digests, lock files and remote cache manifests
// hold these lines. A node's inputs are hashed with TreeOptions.FollowLinks
// instead, since a data set linked into a pipeline folder is the data, not
// the link: every symlink, the root included, is followed and written as
//
//	L <rel> <target> f <x|-> <size> <sha256>   a link to a regular file
//	L <rel> <target> d <sha256>                a link to a folder: its tree digest
//
// with the target quoted as a path is when it holds a space, so a link's
// text and what it leads to both count: pointing it elsewhere changes the
// digest, and so does editing what it leads to. A linked folder is hashed
// as a tree of its own, with the same rule (its links followed too). A link
// that dangles, or that loops — to itself, or to a folder that holds it or
// one of the links followed on the way to it — is a *LinkError; one to a
// device, a fifo or a socket is a *NotRegularError that names the link. A tree without links
// has the same digest either way, so inputs without links keep their keys.
// The stat cache keys a followed file by the link's path and the stat (not
// lstat) signature of the file it leads to, so an edit of that file, even
// one that keeps its size and mtime, is a miss. StatPrintFollow is the
// matching fingerprint: it stats both the link and what it leads to.
//
// File modes are reduced to one bit, executable or not (x when any of the
// three exec bits is set), as git does. Read and write bits come from each
// host's umask (0644 on one machine, 0664 on another), so hashing them would
// make the same build look different on two hosts, while the exec bit
// changes what a file does and is kept. Owners and timestamps are left out
// for the same reason.
//
// StatCache maps an absolute path to the content digest last computed for it,
// trusted only while the file's (device, inode, size, mtime, ctime) signature
// is unchanged. Like git's racy-clean rule, a digest is not stored when the
// file's mtime or ctime lies within two seconds before the moment hashing
// started: the file could still change inside the timestamp granularity
// without changing its signature. Any later write moves ctime past the stored
// value, so a stored entry cannot go stale unnoticed, even when mtime is
// forced back. Caching needs Linux stat fields; elsewhere every file is read.
//
// A Listing does for a folder's entries what the stat cache does for a
// file's content, by the same rule: read when the folder's signature was not
// racy, it stands for reading the folder (TreeOptions.Listing) while that
// signature holds, since adding, removing, renaming or replacing an entry
// changes the folder's mtime and ctime. Only folders without subfolders are
// listed, and each listed file is still stat'ed, so an edit is noticed. A
// tree digest that reads a folder also gives its Listing when asked
// (TreeOptions.Listed), so one read both checks a result and lists it.
// A Stamp is the folder's signature alone, for a caller that keeps what it
// read of the folder itself (the no-change check's stable links). A seal
// (SealTree, SealFile) goes one step further for a caller that keeps a
// digest: the stamps of a listed folder's files, or of one file, under
// which the stat cache vouched for their digests. While they all hold, the
// digest is what the cache would give again, checked with lstat calls
// alone (SealHolds, FileHolds). A symlink is never sealed (SealFile
// refuses one): lstat cannot see the file it leads to.
//
// Locking: a StatCache is safe for concurrent use; one RWMutex guards its
// map. Tree hashes files with a pool of goroutines that share the cache and
// write results into distinct slots of the entry list; listing and assembly
// happen on the calling goroutine. The chunks of large files are hashed by
// a second pool after the first, each chunk's digest written into its own
// slot; a file's chunks are combined once all are done. A Key is not safe
// for concurrent use.
package hash
