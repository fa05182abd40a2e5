package remotecache

import (
	"path"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// folder is one folder of a record's tree while its REAPI Directory is
// built: its entries by name.
type folder struct {
	files []File // regular files of at most hash.ChunkSize bytes
	dirs  []string
	links []File
}

// encodedTree is a REAPI Tree and the digests an OutputDirectory names.
type encodedTree struct {
	bytes []byte
	tree  digest // of bytes
	root  digest // of the root Directory
}

// resultTree encodes the record's tree as a Tree whose root is the result
// folder: every folder, every symlink and every file stored as one blob.
// A file larger than hash.ChunkSize is left out (no blob holds it whole);
// chunkTree names its chunks. The Tree is topologically sorted, each
// distinct Directory once, parents first.
func resultTree(files []File) encodedTree {
	folders := map[string]*folder{"": {}}
	for _, f := range files {
		dir, name := path.Split(f.Path)
		dir = strings.TrimSuffix(dir, "/")
		parent := folders[dir]
		if parent == nil { // Check refuses such a record; kiln writes none
			parent = &folder{}
			folders[dir] = parent
		}
		switch f.Type {
		case "d":
			parent.dirs = append(parent.dirs, name)
			if folders[f.Path] == nil {
				folders[f.Path] = &folder{}
			}
		case "l":
			parent.links = append(parent.links, File{Path: name, Target: f.Target})
		case "f":
			if len(f.Chunks) == 0 {
				g := f
				g.Path = name
				parent.files = append(parent.files, g)
			}
		}
	}
	w := &treeWriter{folders: folders, seen: map[digest]bool{}}
	root, rootDigest := w.directory("")
	return w.tree(root, rootDigest)
}

// chunkTree encodes the chunks of the record's files larger than
// hash.ChunkSize as a Tree of one folder, each distinct chunk a file named
// by its SHA-256; ok is false when the record has none.
func chunkTree(files []File) (t encodedTree, ok bool) {
	var chunks []File
	seen := map[string]bool{}
	for _, f := range files {
		for _, b := range f.blobs() {
			if len(f.Chunks) == 0 || seen[b.sha256] {
				continue
			}
			seen[b.sha256] = true
			chunks = append(chunks, File{Path: b.sha256, SHA256: b.sha256, Size: b.size})
		}
	}
	if len(chunks) == 0 {
		return encodedTree{}, false
	}
	w := &treeWriter{folders: map[string]*folder{"": {files: chunks}}, seen: map[digest]bool{}}
	root, rootDigest := w.directory("")
	return w.tree(root, rootDigest), true
}

// treeWriter encodes Directory messages bottom up and keeps each distinct
// one once, in the order they were finished: children before parents.
type treeWriter struct {
	folders map[string]*folder
	seen    map[digest]bool
	done    [][]byte
}

// directory encodes the folder at p (its subfolders first) and returns
// its Directory message and digest.
func (w *treeWriter) directory(p string) ([]byte, digest) {
	f := w.folders[p]
	byName := func(a, b File) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(f.files, byName)
	slices.SortFunc(f.links, byName)
	slices.Sort(f.dirs)
	var b []byte
	for _, file := range f.files {
		m := appendString(nil, fileNodeName, file.Path)
		m = appendDigest(m, fileNodeDigest, digest{Hash: file.SHA256, Size: file.Size})
		m = appendBool(m, fileNodeExec, file.Exec)
		b = appendMessage(b, directoryFiles, m)
	}
	for _, name := range f.dirs {
		sub, d := w.directory(path.Join(p, name))
		if !w.seen[d] {
			w.seen[d] = true
			w.done = append(w.done, sub)
		}
		m := appendString(nil, dirNodeName, name)
		m = appendDigest(m, dirNodeDigest, d)
		b = appendMessage(b, directoryDirs, m)
	}
	for _, l := range f.links {
		m := appendString(nil, symlinkName, l.Path)
		m = appendString(m, symlinkTarget, l.Target)
		b = appendMessage(b, directorySymlinks, m)
	}
	return b, digestOf(b)
}

// tree writes the Tree: the root, then every other distinct Directory,
// parents before children (the reverse of the order they were finished).
func (w *treeWriter) tree(root []byte, rootDigest digest) encodedTree {
	b := appendMessage(nil, treeRoot, root)
	for i := len(w.done) - 1; i >= 0; i-- {
		b = protowire.AppendTag(b, treeChildren, protowire.BytesType)
		b = protowire.AppendBytes(b, w.done[i])
	}
	return encodedTree{bytes: b, tree: digestOf(b), root: rootDigest}
}
