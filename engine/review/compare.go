package review

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
)

// Options say what to compare.
type Options struct {
	Path     string // pipeline file or folder in the working tree
	Old      string // git revision of the old version
	New      string // git revision of the new version; "" for the working tree
	Kinds    []kind.Kind
	Vars     map[string]string // -var, the same at both revisions
	VarFiles []string
	Env      []string // environment for KILN_VAR_name and env(); nil: the process's
	// StateDir holds the recorded durations for the cost estimate; default:
	// the .kiln folder of the pipeline in the working tree.
	StateDir string
	// KilnVersion is written into the report.
	KilnVersion string
}

// Compare loads the pipeline at two revisions, without running anything,
// and reports what the change does: the nodes changed directly and how,
// those invalidated downstream, those added and removed, and the estimated
// cost of rerunning them. A revision that does not exist or a pipeline that
// does not load at one revision (a *LoadError) is an error.
func Compare(ctx context.Context, o Options) (*Report, error) {
	abs, err := filepath.Abs(o.Path)
	if err != nil {
		return nil, err
	}
	repo, err := findRepository(ctx, existingDir(abs))
	if err != nil {
		return nil, err
	}
	rel, err := repo.relative(abs)
	if err != nil {
		return nil, err
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(pipelineFolder(abs), ".kiln")
	}
	oldRev, err := repo.revision(ctx, o.Old)
	if err != nil {
		return nil, err
	}
	newRev := Revision{Name: WorkingTreeName, WorkingTree: true}
	if o.New != "" {
		if newRev, err = repo.revision(ctx, o.New); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "kiln-diff-")
	if err != nil {
		return nil, fmt.Errorf("making a folder for the revisions: %w", err)
	}
	defer os.RemoveAll(tmp)
	oldSide, err := repo.loadRevision(ctx, oldRev, rel, filepath.Join(tmp, "old"), &o)
	if err != nil {
		return nil, err
	}
	var newSide *side
	if newRev.WorkingTree {
		newSide, err = loadSide(newRev, abs, &o, workingStatCache(abs), nil)
	} else {
		newSide, err = repo.loadRevision(ctx, newRev, rel, filepath.Join(tmp, "new"), &o)
	}
	if err != nil {
		return nil, err
	}
	r := diffSides(oldSide, newSide)
	r.FormatVersion, r.KilnVersion, r.Pipeline = FormatVersion, o.KilnVersion, filepath.ToSlash(rel)
	r.Files = []string{}
	for _, f := range newSide.pipeline.FileNames {
		r.Files = append(r.Files, filepath.ToSlash(filepath.Join(newSide.folderRel(rel), f)))
	}
	stateDir := o.StateDir
	if err := r.estimate(newSide, stateDir); err != nil {
		return nil, err
	}
	if shown, err := repo.relative(stateDir); err == nil {
		r.Cost.State = filepath.ToSlash(shown)
	} else {
		r.Cost.State = stateDir
	}
	r.Graph = affectedGraph(newSide, r)
	return r, nil
}

// revision resolves a revision the user named.
func (r *repository) revision(ctx context.Context, name string) (Revision, error) {
	c, err := r.resolve(ctx, name)
	if err != nil {
		return Revision{}, err
	}
	return Revision{Name: name, Commit: c}, nil
}

// loadRevision materialises rev into dir and loads the pipeline at rel
// there. Messages name files as "REV:path".
func (r *repository) loadRevision(ctx context.Context, rev Revision, rel, dir string, o *Options) (*side, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	if err := r.materialise(ctx, rev.Commit, dir); err != nil {
		return nil, fmt.Errorf("reading revision %s: %w", rev.Label(), err)
	}
	path := filepath.Join(dir, rel)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the pipeline %s does not exist at %s (compare with a revision that has it)", filepath.ToSlash(rel), rev.Label())
	}
	rename := strings.NewReplacer(dir+string(filepath.Separator), rev.Name+":", dir, rev.Name+":").Replace
	return loadSide(rev, path, o, hash.NewStatCache(), rename)
}

// relative returns path relative to the top of the repository.
func (r *repository) relative(path string) (string, error) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		// The path may not exist in the working tree when two revisions
		// are compared: resolve its folder instead.
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if derr != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		resolved = filepath.Join(dir, filepath.Base(path))
	}
	rel, err := filepath.Rel(r.top, resolved)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the git repository %s", path, r.top)
	}
	return rel, nil
}

// folderRel is the folder of the pipeline relative to the top of the
// repository, given the path of the pipeline relative to it.
func (s *side) folderRel(rel string) string {
	if s.path == s.pipeline.Root {
		return rel
	}
	return filepath.Dir(rel)
}

// existingDir is the nearest folder of path that exists, for finding the
// repository.
func existingDir(path string) string {
	for {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// pipelineFolder is the folder of a pipeline file, or the folder itself.
func pipelineFolder(abs string) string {
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return abs
	}
	if strings.HasSuffix(abs, ".hcl") || strings.HasSuffix(abs, ".json") {
		return filepath.Dir(abs)
	}
	return abs
}

// workingStatCache is the working tree's stat cache, read only, so large
// unchanged inputs are not read again.
func workingStatCache(abs string) *hash.StatCache {
	return hash.LoadStatCache(filepath.Join(pipelineFolder(abs), ".kiln", "cache", "stat"))
}

// diffSides classifies the nodes of two versions.
func diffSides(old, cur *side) *Report {
	r := &Report{Old: old.rev, New: cur.rev, Changed: []Changed{}, Added: []Node{}, Removed: []Node{},
		Renamed: []Renamed{}, Invalidated: []Invalidated{}, Unresolved: []Unresolved{}, Resources: []ResourceChange{}}
	renames := findRenames(old, cur)
	renamedFrom := map[addr.Node]addr.Node{}
	for from, to := range renames {
		renamedFrom[to] = from
	}
	rerun := make([]bool, len(cur.dag.Nodes))
	var roots []int
	for _, v := range cur.dag.Graph.Order() {
		n := cur.dag.Nodes[v]
		node := Node{Address: n.Addr.String(), Kind: n.Block.Kind.Name()}
		was := n.Addr
		if from, ok := renamedFrom[n.Addr]; ok {
			was = from
			r.Renamed = append(r.Renamed, Renamed{From: from.String(), To: n.Addr.String(), Kind: node.Kind})
		}
		oldNode := old.pipeline.Node(was)
		if oldNode == nil {
			r.Added = append(r.Added, node)
			rerun[v] = true
			roots = append(roots, v)
			continue
		}
		if rc, ok := resourceChange(n.Addr.String(), oldNode.Meta.Resources, n.Meta.Resources); ok {
			r.Resources = append(r.Resources, rc)
		}
		oldLines, okOld := old.lines[was]
		newLines, okNew := cur.lines[n.Addr]
		if !okOld || !okNew {
			continue
		}
		if reasons := keyChanges(renameNotes(oldLines, renames), newLines); len(reasons) > 0 {
			c := Changed{Node: node}
			for _, reason := range reasons {
				c.Changes = append(c.Changes, reason.JSON())
			}
			r.Changed = append(r.Changed, c)
			rerun[v] = true
			roots = append(roots, v)
		}
	}
	down := cur.dag.Graph.Downstream(roots)
	for _, v := range cur.dag.Graph.Order() {
		if !down[v] || rerun[v] {
			continue
		}
		n := cur.dag.Nodes[v]
		inv := Invalidated{Node: Node{Address: n.Addr.String(), Kind: n.Block.Kind.Name()}, Because: []string{}}
		for _, d := range cur.dag.Graph.Deps(v) {
			if down[d] {
				inv.Because = append(inv.Because, cur.dag.Graph.Name(d))
			}
		}
		r.Invalidated = append(r.Invalidated, inv)
	}
	for _, v := range old.dag.Graph.Order() {
		n := old.dag.Nodes[v]
		if _, renamed := renames[n.Addr]; cur.pipeline.Node(n.Addr) == nil && !renamed {
			r.Removed = append(r.Removed, Node{Address: n.Addr.String(), Kind: n.Block.Kind.Name()})
		}
	}
	r.KeyFiles = keyFiles(old, cur, renames)
	r.Variables = variableChanges(old.pipeline, cur.pipeline)
	maskSensitive(r, old.pipeline, cur.pipeline)
	r.Unresolved = append(r.Unresolved, unresolved(old, cur)...)
	r.Unresolved = append(r.Unresolved, unresolved(cur, old)...)
	slices.SortFunc(r.Unresolved, func(a, b Unresolved) int {
		return strings.Compare(a.Address+" "+a.Revision, b.Address+" "+b.Revision)
	})
	r.Summary = Summary{Changed: len(r.Changed), Invalidated: len(r.Invalidated), Added: len(r.Added),
		Removed: len(r.Removed), Renamed: len(r.Renamed), Resources: len(r.Resources), Unresolved: len(r.Unresolved)}
	r.Summary.Rerun = r.Summary.Changed + r.Summary.Invalidated + r.Summary.Added
	return r
}

// unresolved lists the nodes of s that exist at both revisions but whose
// lines could not be made in s.
func unresolved(s, other *side) []Unresolved {
	var out []Unresolved
	for a, diags := range s.failed {
		if other.pipeline.Node(a) == nil {
			continue
		}
		n := s.pipeline.Node(a)
		var msgs []string
		for _, d := range diags.Errs() {
			msgs = append(msgs, s.rename(d.Error()))
		}
		out = append(out, Unresolved{Node: Node{Address: a.String(), Kind: n.Block.Kind.Name()},
			Revision: s.rev.Name, Error: strings.Join(msgs, "; ")})
	}
	return out
}
