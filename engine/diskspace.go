package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// storeFree is the free and the used space, in bytes, of the filesystem
// holding dir, or of its nearest existing parent (a store not made yet).
// Tests replace it.
var storeFree = func(dir string) (free, used uint64, err error) {
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(dir, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), (st.Blocks - st.Bfree) * uint64(st.Bsize), nil
		}
		parent := filepath.Dir(dir)
		if !errors.Is(err, syscall.ENOENT) || parent == dir {
			return 0, 0, err
		}
		dir = parent
	}
}

// resultSize is what one node's last result took in the store.
type resultSize struct {
	addr  string
	bytes int64
}

// StoreSpaceWarning says, for kiln plan, when the store's disk has less
// free space than the last results of the nodes the plan would build again
// took: each such node is likely to need as much once more, beside the
// result it replaces, which stays in the store until kiln gc. "" when there
// is room, or nothing to compare. Only nodes that will or may run and have
// a result are measured, and the walk stops once they exceed the free
// space or after walkBudget entries, so a plan of many rebuilds stays
// quick.
func StoreSpaceWarning(pl *plan.Plan, stateDir string) string {
	store := state.OpenStore(stateDir)
	free, used, err := storeFree(store.Root())
	if err != nil || pl == nil || used <= free {
		// The results on the disk take no more than it holds: while that
		// is less than its free space, there is room for all of them
		// again, and nothing need be weighed.
		return ""
	}
	var sizes []resultSize
	var total int64
	budget := walkBudget
	for _, d := range pl.Changes {
		if budget <= 0 {
			break
		}
		if d.Blocked != "" || d.Record == nil || d.Record.Entry == "" {
			continue
		}
		if d.Action != plan.Rebuild && d.Action != plan.Repair && d.Action != plan.Maybe {
			continue
		}
		n := treeSize(store.RunPath(d.Record.Entry), &budget)
		if n == 0 {
			continue
		}
		sizes = append(sizes, resultSize{d.Node.Addr.String(), n})
		if total += n; uint64(total) > free {
			break
		}
	}
	if uint64(total) <= free {
		return ""
	}
	return spaceWarningText(free, sizes, store.Root())
}

// spaceWarningText is the warning for the measured sizes, largest first.
func spaceWarningText(free uint64, sizes []resultSize, root string) string {
	sort.SliceStable(sizes, func(i, j int) bool { return sizes[i].bytes > sizes[j].bytes })
	var total int64
	var each []string
	for i, s := range sizes {
		total += s.bytes
		if i < 5 {
			each = append(each, s.addr+" "+byteSize(uint64(s.bytes)))
		}
	}
	if len(sizes) > 5 {
		each = append(each, fmt.Sprintf("%d more", len(sizes)-5))
	}
	return fmt.Sprintf("warning: the store's disk (%s) has %s free, less than the last results of the nodes this plan runs took: %s (%s together); free space on that disk or run kiln gc before kiln apply",
		root, byteSize(free), strings.Join(each, ", "), byteSize(uint64(total)))
}

// walkBudget is how many folder entries a plan looks at, at most, to weigh
// the results of the nodes it would build again.
const walkBudget = 200_000

// treeSize is the size of the regular files under dir, symbolic links not
// followed; 0 when it cannot be read. Each entry seen takes one from budget;
// the walk stops when none is left.
func treeSize(dir string, budget *int) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if *budget--; *budget <= 0 {
			return fs.SkipAll
		}
		if err != nil || !e.Type().IsRegular() {
			return nil
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
		return nil
	})
	return n
}

// byteSize writes n in powers of 1000, as df -H does.
func byteSize(n uint64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
