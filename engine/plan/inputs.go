package plan

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
)

// keyInputs gathers everything the node's key is made of. pending lists the
// upstream nodes whose digest is not known yet.
func (d *Decider) keyInputs(n *config.Node, dec *Decision, vals config.Values) (keyInputs, []addr.Node, error) {
	p := d.Pipeline
	in := keyInputs{
		kind: dec.Kind.Name(), version: dec.Kind.Version(), config: dec.Config.Config,
		env: dec.Config.EnvRead, paths: pathNormaliser{state: p.StateDir, root: p.Root},
	}
	var pending []addr.Node
	for _, dep := range n.Deps {
		v, ok := vals.NodeValue(dep)
		if !ok {
			pending = append(pending, dep)
			continue
		}
		dg, ok := digestOf(v)
		if !ok {
			pending = append(pending, dep)
			continue
		}
		in.deps = append(in.deps, [2]string{dep.String(), dg})
	}
	files, err := ResolveInputs(p.Root, dec.Config.Inputs)
	if err != nil {
		return in, nil, err
	}
	for _, f := range files {
		dg, err := digestPath(f, d.Stat)
		if err != nil {
			return in, nil, err
		}
		in.inputs = append(in.inputs, [2]string{relTo(p.Root, f), dg})
	}
	if kf, ok := dec.Kind.(kind.KeyFiles); ok && dec.Config.Config.IsWhollyKnown() {
		for _, f := range kf.KeyFiles(dec.KindNode) {
			abs := f
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(p.Root, f)
			}
			if strings.HasPrefix(abs, p.StateDir+"/") {
				continue // an upstream output: its digest is already in the key
			}
			dg, err := digestPath(abs, d.Stat)
			if err != nil {
				return in, nil, fmt.Errorf("%s: %w", f, err)
			}
			in.files = append(in.files, [2]string{relTo(p.Root, abs), dg})
		}
	}
	if dec.Probe != nil {
		in.facts = dec.Probe.KeyLines
	}
	return in, pending, nil
}

func digestPath(p string, c *hash.StatCache) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	var d hash.Digest
	if fi.Mode().IsRegular() {
		d, err = hash.File(p, c)
	} else {
		d, err = hash.Tree(p, c)
	}
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

func relTo(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// ResolveInputs expands input patterns (files, folders, globs with * ? [..]
// and ** for any number of folders) relative to root into sorted absolute
// paths. A literal path that does not exist, or a glob that matches nothing,
// is an error naming it.
func ResolveInputs(root string, patterns []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, pat := range patterns {
		abs := pat
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, pat)
		}
		if !strings.ContainsAny(pat, "*?[") {
			if _, err := os.Lstat(abs); err != nil {
				return nil, fmt.Errorf("input %s not found (create it, or remove it from inputs)", pat)
			}
			if !seen[abs] {
				seen[abs] = true
				out = append(out, abs)
			}
			continue
		}
		matches, err := glob(abs)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", pat, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("input %s matches no file", pat)
		}
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// glob matches a slash pattern where ** stands for zero or more folders.
func glob(pattern string) ([]string, error) {
	if !strings.Contains(pattern, "**") {
		ms, err := filepath.Glob(pattern)
		var files []string
		for _, m := range ms {
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
				files = append(files, m)
			}
		}
		return files, err
	}
	base, _, _ := strings.Cut(pattern, "**")
	base = filepath.Dir(base + "x")
	if _, err := path.Match(pattern, pattern); err != nil {
		return nil, err
	}
	var out []string
	err := filepath.WalkDir(base, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if e.Name() == ".kiln" || e.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if matchDoubleStar(pattern, p) {
			out = append(out, p)
		}
		return nil
	})
	if os := err; os != nil && strings.Contains(os.Error(), "no such file") {
		return nil, nil
	}
	return out, err
}

func matchDoubleStar(pattern, name string) bool {
	pp := strings.Split(pattern, "/")
	np := strings.Split(name, "/")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(pp) {
			if pp[i] == "**" {
				for k := j; k <= len(np); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			}
			if j >= len(np) {
				return false
			}
			if ok, _ := path.Match(pp[i], np[j]); !ok {
				return false
			}
			i, j = i+1, j+1
		}
		return j == len(np)
	}
	return match(0, 0)
}

func absUnder(root, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, p)
}

func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
