package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/state"
)

// NodeLogs are the logs of a node's runs.
type NodeLogs struct {
	// Current is the log of the result the node's stable path holds now
	// (after a restore, the log of the build that made that result); ""
	// when kiln has no record of a result.
	Current string
	// Failed is the log of the node's last failed run, when its record
	// holds a failure: with no result yet, the log kiln logs shows; beside
	// a result (a rerun failed, the earlier result stays), one of Others.
	Failed string
	// Others are the logs of every other run, newest first: failed runs,
	// and builds whose results are not linked now.
	Others []string
	// Segments are the logs of every segment of a resumed result, in the
	// order they ran, Current last; FailedSegments those of the runs an
	// interrupted resumable node made in the folder it resumes in, Failed
	// last. Each is empty for a result made by one run.
	Segments, FailedSegments []string
}

// Logs finds the logs of a node from its record in the state folder dir,
// without loading the pipeline (logs work while the configuration is
// broken). A log path in a record is relative to the pipeline folder, the
// parent of dir.
func Logs(dir string, a addr.Node) (NodeLogs, error) {
	var out NodeLogs
	s, err := state.Load(dir)
	if err != nil {
		return out, err
	}
	root := filepath.Dir(dir)
	r := s.Records[a.String()]
	if r.Good() && r.Log != "" {
		out.Current = absTo(root, r.Log)
	}
	if r != nil && r.Failure != nil && r.Failure.Log != "" {
		out.Failed = absTo(root, r.Failure.Log)
	}
	if r.Good() && len(r.Segments) > 1 {
		out.Segments = segmentLogs(root, r.Segments)
	}
	if r != nil && r.Failure != nil && len(r.Failure.Segments) > 1 {
		out.FailedSegments = segmentLogs(root, r.Failure.Segments)
	}
	entries, err := os.ReadDir(run.LogDir(dir, a))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, err
	}
	for _, e := range entries {
		p := filepath.Join(run.LogDir(dir, a), e.Name())
		if e.Type().IsRegular() && p != out.Current {
			out.Others = append(out.Others, p)
		}
	}
	// Run logs are named by their start time, so names sort by age.
	sort.Sort(sort.Reverse(sort.StringSlice(out.Others)))
	if old := run.LogPath(dir, a) + ".1"; fileExists(old) {
		out.Others = append(out.Others, old) // written before logs were per run
	}
	return out, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func segmentLogs(root string, segs []state.Segment) []string {
	var out []string
	for _, s := range segs {
		if s.Log != "" {
			out = append(out, absTo(root, s.Log))
		}
	}
	return out
}
