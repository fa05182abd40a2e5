package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"

	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/kilnbuild/kiln/engine/state"
)

const journalName = "run.journal"

// List returns the IDs of the recorded runs in the state folder dir, in
// increasing order.
func List(dir string) ([]int, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "runs"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing runs: %w", err)
	}
	var ids []int
	for _, e := range entries {
		if id, err := strconv.Atoi(e.Name()); err == nil && id > 0 && e.IsDir() && strconv.Itoa(id) == e.Name() {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids, nil
}

// ErrNoRuns says that no apply was recorded yet.
var ErrNoRuns = errors.New("no recorded runs: kiln apply records one")

// Load reads the run id of the state folder dir; id 0 is the latest run.
func Load(dir string, id int) (*Run, error) {
	ids, err := List(dir)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, ErrNoRuns
	}
	if id == 0 {
		id = ids[len(ids)-1]
	}
	runDir := filepath.Join(dir, "runs", strconv.Itoa(id))
	path := filepath.Join(runDir, journalName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no run %d: the recorded runs are %s", id, rangeText(ids))
	}
	if err != nil {
		return nil, err
	}
	r, ended, interrupted, err := replay(path, data)
	if err != nil {
		return nil, err
	}
	r.Dir = runDir
	switch {
	case ended && !interrupted:
		r.Status = Complete
	case ended:
		r.Status = Interrupted
	case holds(dir, r):
		r.Status = Running
	default:
		r.Status = Interrupted
	}
	return r, nil
}

// Previous returns the ID of the run recorded before id, or 0.
func Previous(dir string, id int) (int, error) {
	ids, err := List(dir)
	if err != nil {
		return 0, err
	}
	prev := 0
	for _, x := range ids {
		if x < id {
			prev = x
		}
	}
	return prev, nil
}

// holds reports whether the process that began r holds the apply lock.
func holds(dir string, r *Run) bool {
	h, ok := state.CurrentHolder(dir)
	if !ok || h.PID != r.PID || h.Host != r.Host {
		return false
	}
	if host, _ := os.Hostname(); host != r.Host {
		return true // another machine's process: trust the lock file
	}
	err := syscall.Kill(r.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Metrics reads the metric series of the node at index i.
func (r *Run) Metrics(i int) (*metrics.Series, error) {
	f, err := os.Open(filepath.Join(r.Dir, "metrics", MetricsFile(r.Nodes[i].Addr)))
	if errors.Is(err, fs.ErrNotExist) {
		return &metrics.Series{Points: map[string][]metrics.Point{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return metrics.ReadSeries(f)
}

// rangeText writes sorted IDs compactly: "1-3, 7".
func rangeText(ids []int) string {
	out := ""
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if out != "" {
			out += ", "
		}
		if j > i {
			out += fmt.Sprintf("%d-%d", ids[i], ids[j])
		} else {
			out += strconv.Itoa(ids[i])
		}
		i = j + 1
	}
	return out
}
