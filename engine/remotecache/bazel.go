package remotecache

import (
	"fmt"
	"slices"
	"strings"
)

// The paths of kiln's action-cache entry (an ActionResult, bazel.go) for
// a node result: the result folder, kiln's record, and the chunks of files
// larger than hash.ChunkSize.
const (
	resultPath = "out"
	recordPath = "kiln/record.json"
	chunksPath = "kiln/chunks"
)

// maxActionResult bounds an action-cache entry in the REAPI format: kiln's
// name two or three outputs in a few hundred bytes; servers add a little
// (bazel-remote the address of the host that sent it).
const maxActionResult = 64 << 10

// entry is what Push writes for one record beside its file blobs: the
// ActionResult for /ac/KEY and the blobs it names that are not files of the
// result (the record's JSON and the Trees), each under /cas/.
type entry struct {
	result []byte
	blobs  [][]byte
}

// entryOf builds the action-cache entry of rec, whose JSON is body.
func entryOf(rec *Record, body []byte) entry {
	ac, trees := expectedResult(rec, digestOf(body))
	e := entry{result: ac.marshal(), blobs: [][]byte{body}}
	for _, t := range trees {
		e.blobs = append(e.blobs, t.bytes)
	}
	return e
}

// expectedResult is the ActionResult kiln writes for rec whose JSON has
// the given digest, and the Trees it names.
func expectedResult(rec *Record, record digest) (*actionResult, []encodedTree) {
	out := resultTree(rec.Files)
	ac := &actionResult{
		Files: []outputFile{{Path: recordPath, Digest: record}},
		Dirs:  []outputDir{{Path: resultPath, Tree: out.tree, Root: out.root, Sorted: true}},
	}
	trees := []encodedTree{out}
	if chunks, ok := chunkTree(rec.Files); ok {
		ac.Dirs = append(ac.Dirs, outputDir{Path: chunksPath, Tree: chunks.tree, Root: chunks.root, Sorted: true})
		trees = append(trees, chunks)
	}
	return ac, trees
}

// recordDigest is the digest of the record an entry names.
func (a *actionResult) recordDigest() (digest, error) {
	for _, f := range a.Files {
		if f.Path == recordPath {
			if f.Digest.Size > maxRecord {
				return digest{}, errTooLarge
			}
			return f.Digest, nil
		}
	}
	return digest{}, fmt.Errorf("the ActionResult names no %s, so it is not kiln's", recordPath)
}

// agrees checks that the entry names exactly the outputs kiln writes for
// rec (whose JSON had the digest the entry names): the same Trees, so the
// blobs a server such as bazel-remote checks and keeps before it answers
// are the ones the record makes kiln fetch. The signature covers the
// record, and through its tree digest every file; this check ties the
// unsigned entry to it.
func (a *actionResult) agrees(rec *Record) error {
	d, err := a.recordDigest()
	if err != nil {
		return err
	}
	want, _ := expectedResult(rec, d)
	sameDir := func(x, y outputDir) bool { return x.Path == y.Path && x.Tree == y.Tree && x.Root == y.Root }
	if !slices.Equal(a.Files, want.Files) || !slices.EqualFunc(a.Dirs, want.Dirs, sameDir) {
		return fmt.Errorf("its ActionResult names outputs that differ from those of the record it names (%s)", describe(a))
	}
	return nil
}

func describe(a *actionResult) string {
	s := ""
	for _, f := range a.Files {
		s += fmt.Sprintf("file %q %.12s/%d; ", printable(f.Path), f.Digest.Hash, f.Digest.Size)
	}
	for _, d := range a.Dirs {
		s += fmt.Sprintf("folder %q tree %.12s/%d; ", printable(d.Path), d.Tree.Hash, d.Tree.Size)
	}
	if len(s) > 300 {
		s = strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}
