package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/history"
	"github.com/kilnbuild/kiln/engine/human"
)

// RunAt is the newest recorded run of the state folder dir that began with
// the git revision rev (a branch, tag, HEAD~2, a commit) checked out, for
// kiln metrics diff REV: each run records the commit it ran at.
func RunAt(ctx context.Context, dir, rev string) (int, error) {
	out, err := git(ctx, filepath.Dir(dir), "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return 0, fmt.Errorf("%s is neither a run (an ID, prev or latest) nor a git revision of the repository at %s", rev, filepath.Dir(dir))
	}
	commit := strings.TrimSpace(string(out))
	ids, err := history.List(dir)
	if err != nil {
		return 0, err
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if r, err := history.Load(dir, ids[i]); err == nil && r.Commit == commit {
			return r.ID, nil
		}
	}
	return 0, fmt.Errorf("no recorded run began at %s (%s): kiln runs lists each run's commit", rev, human.Short(commit))
}
