// Package gitrepo implements the git_repo node kind: a checkout of a git
// repository at a full 40-hex commit, with optional ordered patches,
// submodules and Git LFS files.
//
// A build fetches the commit into a bare mirror cache under the state folder,
// <state>/git/<sha256(url)[:16]>.git, then runs git init in the output folder
// and fetches the commit from the mirror with
// "git fetch --depth 1 file://<mirror> <sha>". Fetching from the mirror (not
// --reference or alternates) keeps every checkout self-contained: removing or
// collecting the mirror never breaks a result in the store, at the cost of
// copying the objects of one commit. A commit already in the mirror is never
// fetched from the network again. Servers that refuse a fetch of an
// unadvertised commit get a full fetch of their branches and tags instead.
// The checkout's origin remote names the real url, so submodules with
// relative urls and Git LFS resolve against it; submodules and LFS objects
// are fetched from the network, not the mirror.
//
// A url that is a relative local path is taken from the pipeline folder.
// A ref (branch or tag) is resolved with git ls-remote at build time (or by
// kiln lock, through ResolvePins), and the commit found is recorded in
// Result.Attrs["commit"]. As a kind.Pinner it is locked in kiln.lock.hcl with
// the ref and url it came from; Pin sets commit and removes ref, so the key
// names the commit and a moving branch changes nothing until the lock does.
//
// Patches are applied after checkout, in order, with git apply; a patch git
// apply refuses is applied with GNU patch ("patch -p1 --forward --batch",
// checked with --dry-run first, without backup or reject files), as the
// ecosystem's own tools apply theirs: upstream patches are often written by
// hand, and GNU patch takes what git apply calls corrupt (a last context
// line without its newline), CRLF line ends, and context that moved or
// changed a little (fuzz). Which tool applied each patch, git apply's
// refusal, and every hunk that needed an offset or fuzz are written to the
// log and kept in Result.Attrs["patches"]; a patch neither applies fails the
// build naming the files and hunks. HEAD and the real index stay at the
// commit, so tools that check "git rev-parse HEAD" still see it.
// Probe finds at plan time the programs a build would run, on the node's
// PATH: git, git-lfs with lfs = true, and GNU patch whenever there are
// patches (which ones git apply refuses is known only after checkout); one
// that is missing blocks the node with the package that ships it.
// The patched working tree is identified by the tree id that
// "git add -A; git write-tree" gives with a private index file
// (.git/kiln-index); files that .gitignore excludes are not part of it, and a
// submodule counts by its checked-out commit. The digest is the SHA-256 of
// the lines "commit <sha>", "tree <tree id>" and "patch <path> <sha256>" per
// patch; Verify recomputes the tree id to find drift.
//
// Git runs with the build's environment plus the user's git configuration
// and network settings from kiln's own environment (HOME, XDG_CONFIG_HOME,
// GIT_CONFIG_GLOBAL, the ssh agent, proxies, certificates: see userVars), so
// url.<base>.insteadOf mirrors, credential helpers and proxies work as they do
// for the user's own git. None of them enters a key, and settings that would
// change what a checkout holds (line-end conversion, global attributes and
// excludes, hooks, templates, LFS downloads at checkout) are overridden
// through GIT_CONFIG_COUNT, so the same commit and patches give the same tree
// for every user. Git runs without terminal prompts or interactive ssh
// (BatchMode, unless GIT_SSH_COMMAND or GIT_SSH is set), and in its own
// process group, which gets SIGTERM and then SIGKILL when the build is
// cancelled.
//
// Locking: every use of a mirror, reading or writing, holds an exclusive flock
// on <mirror>.lock, so nodes that share a repository never write it at once.
// Verify holds a flock on .git/kiln-verify.lock of the checkout while it
// refreshes the private index.
package gitrepo
