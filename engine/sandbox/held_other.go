//go:build !linux

package sandbox

// Nothing is held where Landlock is missing.
func heldBound() int                              { return 0 }
func openPath(string) (fd int, dir bool, ok bool) { return -1, false, false }
func closePath(int)                               {}
