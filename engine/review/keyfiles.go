package review

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/human"
)

// KeyFile is a file that enters the key of at least one node, at either
// version: an input, a key file of a kind (a patch, a requirements file),
// or a file the configuration reads (file, yamldecode(file(...)),
// templatefile, filesha256, fileexists). Old and New are its short digests
// as the keys hold them ("" where the version does not use it).
type KeyFile struct {
	Path  string   `json:"path"` // relative to the pipeline folder
	How   string   `json:"how"`  // input, key file, read
	Old   string   `json:"old"`
	New   string   `json:"new"`
	Nodes []string `json:"nodes"` // nodes of the new version (else the old) whose key it enters
}

// Changed reports whether the file differs between the versions.
func (f KeyFile) Changed() bool { return f.Old != f.New }

// keyFiles lists the files on input, file and read lines of every node at
// both versions, by path.
func keyFiles(old, cur *side, renames map[addr.Node]addr.Node) []KeyFile {
	type entry struct {
		KeyFile
		oldNodes, newNodes map[string]bool
	}
	files := map[string]*entry{}
	add := func(s *side, isNew bool) {
		for a, lines := range s.lines {
			name := a.String()
			if to, ok := renames[a]; ok && !isNew {
				name = to.String()
			}
			for _, l := range lines {
				label, subject, value := l.Label, l.Subject, l.Value
				how := map[string]string{"input": "input", "file": "key file", "read": "read"}[label]
				if how == "" {
					continue
				}
				e := files[subject]
				if e == nil {
					e = &entry{KeyFile: KeyFile{Path: subject, How: how}, oldNodes: map[string]bool{}, newNodes: map[string]bool{}}
					files[subject] = e
				}
				v := shortValue(value)
				if isNew {
					e.New = v
					e.newNodes[name] = true
				} else {
					e.Old = v
					e.oldNodes[name] = true
				}
			}
		}
	}
	add(old, false)
	add(cur, true)
	out := []KeyFile{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		e := files[p]
		nodes := e.newNodes
		if len(nodes) == 0 {
			nodes = e.oldNodes
		}
		e.Nodes = slices.Sorted(maps.Keys(nodes))
		out = append(out, e.KeyFile)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func shortValue(v string) string {
	if len(v) == 64 && strings.Trim(v, "0123456789abcdef") == "" {
		return human.Short(v)
	}
	return v
}
