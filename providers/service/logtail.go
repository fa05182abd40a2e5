package service

import (
	"fmt"
	"io"
	"os"
	"strings"
)

const (
	tailLines = 20
	tailBytes = 64 << 10 // enough for 20 long lines
)

// logTail is the end of a service log, headed by its path, for an error.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(the service log %s cannot be read: %v)", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > tailBytes {
		if _, err := f.Seek(-tailBytes, io.SeekEnd); err != nil {
			return fmt.Sprintf("(the service log %s cannot be read: %v)", path, err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(the service log %s cannot be read: %v)", path, err)
	}
	text := strings.TrimRight(string(b), "\n")
	if text == "" {
		return fmt.Sprintf("(the service log %s is empty)", path)
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	head := fmt.Sprintf("last %d lines", len(lines))
	if len(lines) == 1 {
		head = "last line"
	}
	return fmt.Sprintf("%s of %s:\n%s", head, path, strings.Join(lines, "\n"))
}
