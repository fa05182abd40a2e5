// Package fetch is the fetch node kind: a pinned HTTP(S) download, or the
// files of a Hugging Face repo at a pinned commit.
//
// A url download must carry checksum = "sha256:HEX". Without one, the first
// download's sha256 is recorded in Result.Attrs["checksum"] and the log says
// loudly that the file was not verified and which line pins it; the engine
// keeps that checksum in kiln.lock.hcl (kind.Pinner) and hands it back as the
// hidden attribute locked_checksum, so a later download that differs fails
// saying it changed since it was locked and to run kiln lock -update. With
// extract = true a .tar, .tar.gz/.tgz, .tar.xz/.txz or .zip is unpacked into
// the output folder (path exports the folder) instead of stored as a file
// (path exports out/filename). A huggingface block lists the repo with the
// hub's revision API (?blobs=true) and downloads the files matching files
// (fnmatch patterns, as huggingface_hub's allow_patterns) to out/ORG/NAME,
// the layout verl's loaders expect; each file is checked against the hub's
// LFS sha256 or git blob id. Its checksum export is the sha256 of the
// "sha256  name" lines of the files, in name order. The token named by
// token_env is read from Build.Env, then kiln's environment, and is only
// ever put in an Authorization header: never in errors, logs or attrs.
//
// A huggingface revision is a 40-hex commit, or a branch or tag. A branch
// or tag is resolved as a git ref is: the listing at the ref names the
// commit (the "sha" of the answer), every file is downloaded at that commit,
// and the commit is recorded in Result.Attrs["revision"] and kept in
// kiln.lock.hcl (kind.Pinner) with the ref and the repo; Pin then writes it
// into the block's revision, so the key names the commit and a moving branch
// changes nothing until kiln lock -update. ResolvePins asks the revision API
// alone, without listing or downloading.
//
// Invariants. Bytes arrive in <state>/fetch/partial/<sha256(url)> and move
// into the output folder only once verified, so a failed build publishes
// nothing. A partial file survives a failure (stall, cut connection, Ctrl-C)
// and the next run resumes it with Range and If-Range (the ETag or
// Last-Modified of the first answer); a server answering 200 restarts it. A
// checksum mismatch or an exceeded max_bytes deletes it. A verified archive
// whose extraction was refused stays, marked by <name>.refused, so that a
// build with other limits extracts it without downloading it again. kiln gc
// (Collect, a kind.Collector) removes a refused one at once and an
// interrupted one once no byte has come for ResumeFor (7 days) or for
// -older-than; it holds the apply lock, so no build is resuming it. The
// partial files are opened without following a symbolic link planted at
// their names (engine/nolink). There is no total
// timeout: a transfer ends only when no byte arrives for stall_timeout
// (default 60s) or the engine cancels ctx; only the hub's small listing
// answer must arrive within stall_timeout as a whole. max_bytes bounds each url
// download, the sum of a repo's files, and what an archive unpacks to
// (without max_bytes: 100 times the archive's size, at least 4 GiB, so a
// compression bomb cannot fill the disk; entries by Fetch.MaxFiles).
// Extraction refuses absolute names, "..", writing through a symlink and
// symlinks resolving outside the output folder.
//
// Locking: builds of this process that download the same URL take turns on
// its partial file (partialLocks); separate kiln processes never build at
// once, the state lock sees to that.
//
// Why net/http and not go-getter. go-getter v2.2.5's HTTP getter appends a
// 200 answer to a Range request onto the partial file (corrupting it), has
// no idle timeout (only a total ReadTimeout, 30s by default in its client,
// fatal to large files), and ignores MaxBytes once a progress tracker is
// set. Its decompressors count sizes from headers, turn
// symlinks into empty files and accept absolute entry names (bench/peers
// shows each, TestGoGetter*). The transfer and the unpacking are therefore
// written here directly, small enough to read, with archive/tar,
// archive/zip, compress/gzip and ulikunitz/xz.
package fetch
