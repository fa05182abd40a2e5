package main

import (
	"fmt"
	"io"
	"os"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
)

// logSegments returns the logs of every segment of the run whose log is
// file, in the order they ran, when it resumed interrupted ones: a resumed
// result's log is the whole of its work, not its last segment.
func logSegments(l engine.NodeLogs, file string) []string {
	switch {
	case file == "":
		return nil
	case file == l.Current:
		return l.Segments
	case file == l.Failed:
		return l.FailedSegments
	}
	return nil
}

// printSegments prints the logs of a resumed result's segments one after
// the other, each announced on standard error, so that standard output is
// the whole log.
func (c *cli) printSegments(a addr.Node, segs []string) int {
	for i, p := range segs {
		fmt.Fprintf(c.stderr, "kiln logs: %s, segment %d of %d: %s\n", a, i+1, len(segs), p)
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintf(c.stderr, "kiln logs: the log of segment %d is gone\n", i+1)
			continue
		}
		_, _ = io.Copy(c.stdout, f)
		f.Close()
	}
	return 0
}
