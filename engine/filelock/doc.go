// Package filelock holds exclusive flock(2) locks on files: the apply lock
// of a state folder, a git mirror while a checkout uses it. The kernel
// releases a lock when its holder exits or dies, so a crash never leaves a
// stale one; the file stays, since removing it would let two processes lock
// different files. A lock is taken on an open file description: two opens in
// one process exclude each other as two processes do. The lock file is
// opened without following a symbolic link (engine/nolink), so a link
// planted at its name is refused rather than its target locked and written.
package filelock
