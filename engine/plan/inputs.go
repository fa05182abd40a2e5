package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

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
		ext: dec.Config.Extensions, env: dec.Config.EnvRead, paths: pathNormaliser{state: p.StateDir, root: p.Root},
	}
	var pending []addr.Node
	in.deps, pending = d.upstreamsOf(n, dec, vals)
	if n.Dynamic != nil {
		for _, f := range n.Dynamic.Files {
			dg, err := digestPath(f, d.Stat)
			if err != nil {
				return in, nil, fmt.Errorf("%s, which %s was made from: %w", f, n.Addr, err)
			}
			in.from = append(in.from, [2]string{f, dg})
		}
	}
	patterns := in.waitForInputs(p, n, dec, pending, KeyedInputs(p.StateDir, dec.Config.Inputs))
	files, err := ResolveInputs(p.Root, patterns)
	if err != nil {
		return in, nil, err
	}
	for _, f := range files {
		dg, err := inputDigest(p.Root, f, d.Stat)
		if err != nil {
			return in, nil, err
		}
		in.inputs = append(in.inputs, [2]string{relTo(p.Root, f), dg})
	}
	sort.Slice(in.inputs, func(i, j int) bool { return in.inputs[i][0] < in.inputs[j][0] })
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
	in.program = dec.Program
	in.run = runLines(p, n)
	return in, pending, nil
}

// upstreamsOf are n's upstreams as its key names them, and those of them
// that have not run yet (pending). Until it has run, an upstream is assumed
// to keep the digest this node was last built with: the lines that differ
// even so are the node's own change.
func (d *Decider) upstreamsOf(n *config.Node, dec *Decision, vals config.Values) (ups []upstream, pending []addr.Node) {
	var recorded map[string]string
	for _, dep := range n.Deps {
		u := upstream{addr: dep.String(), out: d.Pipeline.OutPath(dep)}
		var ok bool
		if dep.Key.All {
			u.digest, ok = d.allDigest(dep, vals)
		} else {
			u.digest, ok = nodeDigest(vals, dep)
		}
		if !ok {
			pending = append(pending, dep)
			if recorded == nil && dec.Record != nil {
				recorded = RecordedUpstreams(dec.Record.KeyLines)
			}
			u.digest, u.waiting = recorded[u.addr], true
		}
		ups = append(ups, u)
	}
	return ups, pending
}

// waitForInputs returns the input patterns to hash now. An input another
// node writes in place is hashed only once that node ran: until then, as
// for a waiting upstream, it is assumed to be as the node was last built
// with, its recorded lines are taken and marked waiting.
func (in *keyInputs) waitForInputs(p *config.Pipeline, n *config.Node, dec *Decision, pending []addr.Node, patterns []string) []string {
	if len(n.InputsFrom) == 0 || len(pending) == 0 {
		return patterns
	}
	var now []string
	for _, pat := range patterns {
		by, ok := n.InputsFrom[pat]
		if !ok || !slices.Contains(pending, by) {
			now = append(now, pat)
			continue
		}
		if dec.Record == nil {
			continue
		}
		for _, l := range dec.Record.KeyLines {
			if subject := l.Subject; l.Label == "input" && produces(p.Root, pat, absUnder(p.Root, subject)) {
				in.inputs = append(in.inputs, [2]string{subject, l.Value})
				if in.waitingInputs == nil {
					in.waitingInputs = map[string]string{}
				}
				in.waitingInputs[subject] = by.String()
			}
		}
	}
	return now
}

// allDigest is the digest of a dynamic block's instances taken together,
// once it is expanded and every instance's digest is known.
func (d *Decider) allDigest(all addr.Node, vals config.Values) (string, bool) {
	insts, ok := d.Pipeline.Expanded(all.Block())
	if !ok {
		return "", false
	}
	lines := make([]string, 0, len(insts))
	for _, n := range insts {
		dg, ok := nodeDigest(vals, n.Addr)
		if !ok {
			return "", false
		}
		lines = append(lines, n.Addr.String()+" "+dg)
	}
	return hash.Lines(lines...).String(), true
}

func digestPath(p string, c *hash.StatCache) (string, error) {
	return digestPathRead(p, c, nil)
}

// DigestPath is the digest a key gives a key file, or an instance file: its
// content's, or its tree's, links not followed. An input's is InputDigest.
func DigestPath(p string, c *hash.StatCache) (string, error) { return digestPath(p, c) }

// digestPathRead is digestPath that adds the bytes it reads to read.
func digestPathRead(p string, c *hash.StatCache, read *atomic.Int64) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	var d hash.Digest
	if fi.Mode().IsRegular() {
		d, err = hash.FileWith(p, c, read)
	} else {
		d, err = hash.TreeWith(p, c, hash.TreeOptions{Read: read})
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

// MissingInputError says an input file does not exist, a glob among the
// inputs matches nothing, or an input is or holds a symlink that dangles.
// It stops that node only: the plan shows it as unable to run and apply
// fails it, while the rest of the pipeline goes on.
type MissingInputError struct {
	Pattern string
	Glob    bool
	// Link is the symlink that dangles, Pattern itself or a file under it
	// (relative to the pipeline folder where inside it), and Target its
	// text; "" when the input itself is missing.
	Link, Target string
}

func (e *MissingInputError) Error() string {
	if e.Link != "" {
		in := ""
		if e.Link != e.Pattern {
			in = " (in input " + e.Pattern + ")"
		}
		return fmt.Sprintf("input %s%s is a symlink to %s, which does not exist (create it, or remove the link from inputs)", e.Link, in, e.Target)
	}
	if e.Glob {
		return fmt.Sprintf("input %s matches no file", e.Pattern)
	}
	return fmt.Sprintf("input %s not found (create it, or remove it from inputs)", e.Pattern)
}

// ResolveInputs expands input patterns (files, folders, globs with * ? [..]
// and ** for any number of folders) relative to root into sorted absolute
// paths. A literal path that does not exist, or a glob that matches nothing,
// is an error naming it (a *MissingInputError), as is a path that is a
// symlink that dangles; one that is a device, a FIFO, a socket, a symlink
// loop or a link to one of those is a *BadInputError. A glob matches a
// symlink to a folder as a path (hashed as that folder), but does not walk
// into it. Only the pattern is matched: root itself may hold characters
// that look like glob syntax.
func ResolveInputs(root string, patterns []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, pat := range patterns {
		base, rel := root, filepath.ToSlash(pat)
		if filepath.IsAbs(pat) {
			base, rel = "/", strings.TrimPrefix(rel, "/")
		}
		if !strings.ContainsAny(rel, "*?[") {
			abs := filepath.Join(base, rel)
			fi, err := os.Lstat(abs)
			if err != nil {
				return nil, &MissingInputError{Pattern: pat}
			}
			if err := checkResolved(root, abs, fi.Mode()); err != nil {
				return nil, err
			}
			add(abs)
			continue
		}
		matches, err := glob(root, base, rel)
		var missing *MissingInputError
		var bad *BadInputError
		if errors.As(err, &missing) || errors.As(err, &bad) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", pat, err)
		}
		if len(matches) == 0 {
			return nil, &MissingInputError{Pattern: pat, Glob: true}
		}
		for _, m := range matches {
			add(m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// glob returns the files under base whose slash path relative to base
// matches pattern, where ** stands for zero or more folders, each checked
// as checkResolved checks an input of the pipeline at root. The walk
// starts at the longest literal folder prefix of the pattern.
func glob(root, base, pattern string) ([]string, error) {
	segs := strings.Split(pattern, "/")
	for _, s := range segs {
		if s != "**" {
			if _, err := path.Match(s, ""); err != nil {
				return nil, err
			}
		}
	}
	lit := 0
	for lit < len(segs)-1 && !strings.ContainsAny(segs[lit], "*?[") {
		lit++
	}
	start := filepath.Join(base, filepath.FromSlash(strings.Join(segs[:lit], "/")))
	rest := segs[lit:]
	deep := false
	for _, s := range rest {
		deep = deep || s == "**"
	}
	var out []string
	err := filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == start && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(start, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if p != start && (e.Name() == ".kiln" || e.Name() == ".git") {
				return filepath.SkipDir
			}
			if !deep && rel != "." && strings.Count(rel, "/")+1 >= len(rest) {
				return filepath.SkipDir
			}
			return nil
		}
		if matchSegments(rest, strings.Split(rel, "/")) {
			if err := checkResolved(root, p, e.Type()); err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// matchSegments matches path segments against pattern segments, where a
// "**" segment matches zero or more path segments.
func matchSegments(pp, np []string) bool {
	for len(pp) > 0 {
		if pp[0] == "**" {
			for k := 0; k <= len(np); k++ {
				if matchSegments(pp[1:], np[k:]) {
					return true
				}
			}
			return false
		}
		if len(np) == 0 {
			return false
		}
		if ok, _ := path.Match(pp[0], np[0]); !ok {
			return false
		}
		pp, np = pp[1:], np[1:]
	}
	return len(np) == 0
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

// KeyedInputs are the input patterns whose files enter a key: all but those
// inside the state folder — an upstream's output, whose digest is in the key
// already and which exists only once that upstream ran (and is linked).
func KeyedInputs(stateDir string, patterns []string) []string {
	var out []string
	for _, pat := range patterns {
		if !within(stateDir, pat) {
			out = append(out, pat)
		}
	}
	return out
}
