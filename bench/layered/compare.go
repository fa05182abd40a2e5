package layered

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Mismatch is a node whose file differs between the trees, or is missing.
type Mismatch struct {
	Node   string
	Detail string
}

// Compare checks that kiln, make and ninja left the same bytes for every
// node of d under root (as laid out by Write). It returns the nodes that
// differ, in DAG order; an error only when a folder cannot be read at all.
func Compare(root string, d *DAG) ([]Mismatch, error) {
	for _, dir := range []string{KilnDir, MakeDir, NinjaDir} {
		if _, err := os.Stat(filepath.Join(root, dir)); err != nil {
			return nil, fmt.Errorf("compare outputs: %w (generate and build the trees first)", err)
		}
	}
	var out []Mismatch
	for _, layer := range d.Layers {
		for _, n := range layer {
			paths := []string{
				filepath.Join(root, KilnDir, KilnOutPath(n.Layer, n.Index)),
				filepath.Join(root, MakeDir, BuildPath(n.Layer, n.Index)),
				filepath.Join(root, NinjaDir, BuildPath(n.Layer, n.Index)),
			}
			if m := compareFiles(paths); m != "" {
				out = append(out, Mismatch{Node: n.Name(), Detail: m})
			}
		}
	}
	return out, nil
}

// compareFiles returns "" when every path holds the same non-empty bytes,
// and otherwise says which one does not.
func compareFiles(paths []string) string {
	var first []byte
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err.Error()
		}
		if len(b) == 0 {
			return p + " is empty"
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(first, b) {
			return fmt.Sprintf("%s holds %q but %s holds %q", paths[0], first, p, b)
		}
	}
	return ""
}
