package hash

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// node is one item of a test tree: a file (content and mode), a symlink
// (target) or, with neither, a folder.
type node struct {
	path    string // slash-separated, relative
	content string
	mode    os.FileMode // files; 0 means 0644
	target  string      // symlinks
	dir     bool
}

func file(path, content string) node { return node{path: path, content: content} }
func exe(path, content string) node  { return node{path: path, content: content, mode: 0o755} }
func link(path, target string) node  { return node{path: path, target: target} }
func folder(path string) node        { return node{path: path, dir: true} }

// build creates the nodes under a new temporary folder and returns it.
func build(t testing.TB, nodes ...node) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range nodes {
		create(t, dir, n)
	}
	return dir
}

func create(t testing.TB, dir string, n node) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(n.path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	switch {
	case n.dir:
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	case n.target != "":
		if err := os.Symlink(n.target, p); err != nil {
			t.Fatal(err)
		}
	default:
		mode := n.mode
		if mode == 0 {
			mode = 0o644
		}
		if err := os.WriteFile(p, []byte(n.content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // WriteFile is subject to the umask
			t.Fatal(err)
		}
	}
}

// manyFiles returns n small files spread over folders of 100.
func manyFiles(n int) []node {
	nodes := make([]node, n)
	for i := range nodes {
		nodes[i] = file(fmt.Sprintf("d%03d/f%05d.txt", i/100, i), fmt.Sprintf("content of file %d\n", i))
	}
	return nodes
}

// waitOutRacyWindow sleeps until files written before the call are old
// enough for the stat cache to store their digests.
func waitOutRacyWindow() { time.Sleep(racyWindow + 100*time.Millisecond) }

func mustTree(t testing.TB, dir string, c *StatCache, o TreeOptions) Digest {
	t.Helper()
	d, err := TreeWith(dir, c, o)
	if err != nil {
		t.Fatalf("TreeWith(%s): %v", dir, err)
	}
	return d
}
