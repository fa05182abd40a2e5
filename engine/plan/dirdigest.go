package plan

import (
	"sync/atomic"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/state"
)

// DirDigest is OutputDigestRead of a run folder named by its path (dir, or
// "" for none): the engine's digest of a result wherever it is hashed — by
// the apply that built it, or by a Slurm job on the compute node that did.
func DirDigest(dir, root string, outputs []string, c *hash.StatCache, read *atomic.Int64) (string, []state.Output, error) {
	return DirDigestWith(dir, root, outputs, c, hash.TreeOptions{Read: read})
}

// DirDigestWith is DirDigest that hashes the run folder with options o (a
// listing of the folder the no-change check recorded, say).
func DirDigestWith(dir, root string, outputs []string, c *hash.StatCache, o hash.TreeOptions) (string, []state.Output, error) {
	read := o.Read
	var tree hash.Digest
	if dir != "" {
		var err error
		if tree, err = hash.TreeWith(dir, c, o); err != nil {
			return "", nil, err
		}
	}
	if len(outputs) == 0 {
		return tree.String(), nil, nil
	}
	lines := []string{"out " + tree.String()}
	var recs []state.Output
	for _, o := range outputs {
		dg, err := digestPathRead(o, c, read)
		if err != nil {
			return "", nil, err
		}
		rel := relTo(root, o)
		lines = append(lines, "output "+rel+" "+dg)
		recs = append(recs, state.Output{Path: rel, Digest: dg})
	}
	return hash.Lines(lines...).String(), recs, nil
}
