package service

import (
	"fmt"
	"strings"

	"github.com/kilnbuild/kiln/engine/proc"
)

const tailLines = 20

// logTail is the end of a service log, headed by its path, for an error.
func logTail(path string, n int) string {
	lines, err := proc.FileTail(path, n)
	switch {
	case err != nil:
		return fmt.Sprintf("(the service log %s cannot be read: %v)", path, err)
	case len(lines) == 0:
		return fmt.Sprintf("(the service log %s is empty)", path)
	}
	head := fmt.Sprintf("last %d lines", len(lines))
	if len(lines) == 1 {
		head = "last line"
	}
	return fmt.Sprintf("%s of %s:\n%s", head, path, strings.Join(lines, "\n"))
}
