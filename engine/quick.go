package engine

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/lockfile"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/state"
)

// The no-change check answers "is everything up to date?" without parsing
// the pipeline. When a plan or an apply leaves every node up to date, kiln
// writes a certificate (.kiln/cache/noop) of what that conclusion rested on:
// a digest of the pipeline's files and variable values, the state's lineage
// and serial and the state file's stamp, the files expressions read exactly as the plan read them (a
// content digest, or for fileexists whether the file was there — never as
// they are after the apply, which may have written them; a file read twice
// with different results means no certificate), the environment variables
// expressions read, and for
// each node its stable path, store entry, input digests, output digest and
// how its program was found (kiln's PATH, and the program found again) —
// taken, with its input patterns, from the decision that settled the node,
// so that writing the certificate evaluates no node again (certeval.go) —
// and the run folder's listing with the folder's stat signature (when the
// folder has no subfolder and changed long enough before).
// The next plan re-checks exactly those with stat calls (through the stat
// cache, the pipeline's files and lock included; a run folder whose
// signature is unchanged is not read again, but each of its files is still
// stat'ed) and, when all still hold, skips loading the HCL and the state.
// The stable links are read once: the first check that holds with the
// links folder (.kiln/out) unchanged for longer than the racy window
// records that folder's stamp (quickCert.Links), and from then on the
// links are trusted while the stamp is unchanged, since no link can point
// elsewhere without the folder changing (see settle). The same check
// seals each node (hash.SealTree, hash.SealFile): the stamps of its run
// folder's files and of its input files under which the stat cache
// vouched for the digests the certificate records. While every stamp of a
// node holds, its check is one lstat per folder and per file — no lookup
// in the stat cache, no digest — and a seal that does not hold leaves the
// node to the check through the stat cache, which a later settle seals
// again. The pipeline's files, lock and variable files are sealed the same
// way (quickCert.Sources), so a check whose seals all hold does not even
// load the stat cache. Inputs are checked as the plan hashes them, their
// symlinks followed (plan.InputDigest), key files as they are
// (quickNode.KeyFiles). An input that is or holds a symlink is never
// sealed, since a seal is an lstat stamp, blind to the file a link leads
// to: every check reads the link again and stats (not lstats) what it
// leads to, through the stat cache, whose digest holds only while that
// file's own signature does — so an edit of a linked data set, even one
// that keeps its size and mtime, fails the check, and the plan made after
// it rebuilds. The certificate is a checksummed binary file
// (quickcert.go). Any
// doubt — a missing or corrupt certificate, a journal (of the state, or of
// the runs a dead apply left), a changed byte — falls back to the full plan,
// so the certificate can only save time, never change an answer. Pipelines
// with kinds that probe the machine or verify their own results (services,
// hosts, toolchains, git checkouts, Python environments) and nodes with
// always_run take the full path every time.

const quickFormat = "kiln-noop-10"

type quickCert struct {
	Format  string
	Config  string
	Lineage string
	Serial  uint64
	// State is the stamp of the state file the plan read: any write to it
	// since (a truncation, a flipped bit, a hand edit) leaves the full
	// path, which checks the file's checksum. Its lineage and serial alone
	// are in its first line, which such damage may leave whole.
	State hash.Stamp
	Reads []config.FileRead // as the plan read them
	Env   []quickFile       // name, short hash of the value
	Nodes []quickNode
	// Sources seal the files the configuration's digest reads (pipeline
	// files, lock, variable files) by their stamps, as settle found them.
	Sources []quickSource
	// Links is the stamp of the stable links' folder (.kiln/out) taken,
	// not racy, before every node's link was read and found as recorded,
	// and unchanged after: while the folder's stamp is this one, no link
	// points elsewhere, and the links need not be read (see settle).
	Links *hash.Stamp
}

type quickFile struct{ Path, Digest string }

// quickSource is a file whose digest the stat cache vouched for under its
// stamp (hash.SealFile).
type quickSource struct {
	Path   string
	Digest hash.Digest
	Stamp  hash.Stamp
}

type quickNode struct {
	Link   string
	Entry  string
	Digest string
	// Inputs are the files of the key's input lines, hashed with their
	// links followed (plan.InputDigest), then the KeyFiles files of its
	// file lines, hashed as they are (digestAny).
	Inputs   []quickFile
	KeyFiles int
	Globs    []quickGlob
	Outputs  []string
	Programs []quickProgram
	// Listing is the run folder's entries when they could be trusted by
	// the folder's stat (see hash.Listing): it saves reading the folder.
	Listing *hash.Listing
	// Sealed: the run folder, listed, digests to Digest while each of its
	// files has its stamp in Seal (hash.SealTree); InputSeals[i], when not
	// zero, is the stamp under which Inputs[i] has its digest
	// (hash.SealFile). A seal that holds stands for the stat cache's
	// lookups and the digest; one that does not leaves the full check.
	Sealed     bool
	Seal       []hash.Stamp
	InputSeals []hash.Stamp
}

// quickProgram is how a node's program was found and the program key line
// it gave: found again the same way, it must give the same line.
type quickProgram struct {
	Name, Dir, Path string // Path: the PATH searched
	Line            string
}

// quickGlob is an input pattern and the files it matched: a new file that
// matches must be noticed, not only a changed one.
type quickGlob struct {
	Pattern string
	Matches []string
}

func quickPath(stateDir string) string { return filepath.Join(stateDir, "cache", "noop") }

// quickConfigDigest identifies a configuration from its raw inputs. The
// files are hashed by digest: through the stat cache (hash.File), or by a
// seal, so that a large pipeline file or lock that has not changed is not
// read again.
func quickConfigDigest(files []string, o Options, digest func(path string) (hash.Digest, error)) string {
	lines := []string{"kiln " + Version, "key " + hash.FormatVersion}
	for _, f := range files {
		d, err := digest(f)
		if err != nil {
			return ""
		}
		lines = append(lines, "file "+f+" "+d.String())
	}
	// The lock file pins what nodes resolve: a changed lock changes keys.
	if len(files) > 0 {
		if d, err := digest(lockfile.Path(filepath.Dir(files[0]))); err == nil {
			lines = append(lines, "lock "+d.String())
		}
	}
	for _, f := range o.VarFiles {
		d, err := digest(f)
		if err != nil {
			return ""
		}
		lines = append(lines, "varfile "+f+" "+d.String())
	}
	for _, k := range slices.Sorted(maps.Keys(o.Vars)) {
		lines = append(lines, "var "+k+" "+hash.Bytes([]byte(o.Vars[k])).String())
	}
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KILN_VAR_") {
			env = append(env, kv)
		}
	}
	sort.Strings(env)
	for _, kv := range env {
		lines = append(lines, "env "+hash.Bytes([]byte(kv)).String())
	}
	return hash.Lines(lines...).String()
}

// QuickCheck reports whether the pipeline at o.Path is certainly up to date,
// and how many nodes it has, using the certificate of the last plan or apply
// that found it so. false means "run the full plan", never "out of date".
func QuickCheck(o Options) (nodes int, upToDate bool) {
	q, ok := openQuick(o, newWhyNot("the no-change check", o.DebugPlan))
	if !ok {
		return 0, false
	}
	start := time.Now()
	links, linksOK := hash.StampOf(q.store.LinksDir())
	trusted := linksOK && q.cert.Links != nil && *q.cert.Links == links
	if r, ok := hash.OpenRoot(q.store.Root()); ok {
		q.storeRoot = r
		defer r.Close()
	}
	q.reseal = make([]bool, len(q.cert.Nodes))
	if !parallel(len(q.cert.Nodes), func(i int) bool { return q.checkQuickNode(i, trusted) }) {
		return 0, false
	}
	q.why.took(fmt.Sprintf("all %d nodes up to date", len(q.cert.Nodes)))
	q.saveStat()
	if linksOK && (!trusted || q.unsealed.Load()) {
		q.settle(links, start, !trusted)
	}
	return len(q.cert.Nodes), true
}

// quickSession is a certificate whose pipeline-wide conditions still hold:
// the configuration, the state, the environment and the files expressions
// read are as it recorded them. Its nodes are left to check.
type quickSession struct {
	cert           *quickCert
	certInfo       os.FileInfo // the certificate file as it was read
	root, stateDir string
	statOnce       sync.Once
	stat           *hash.StatCache // through statCache
	statLoaded     atomic.Bool
	store          *state.Store
	sources        []string    // the files the configuration's digest read
	unsealed       atomic.Bool // a node (or source) to seal again: see reseal
	reseal         []bool      // by node: a seal that did not hold, or none where one may be made
	storeRoot      *hash.Root  // the store folder held open, or nil
	why            *whyNot
}

// openQuick reads the certificate of the pipeline at o.Path and checks what
// it says of the pipeline as a whole; false means the full path.
func openQuick(o Options, why *whyNot) (*quickSession, bool) {
	if len(o.Targets) > 0 || len(o.Replace) > 0 {
		return nil, why.miss("-target or -replace narrows the plan")
	}
	files, root, err := config.Files(o.Path)
	if err != nil {
		return nil, why.miss("%v", err)
	}
	stateDir := filepath.Join(root, ".kiln")
	certInfo, err := os.Stat(quickPath(stateDir))
	if err != nil {
		return nil, why.miss("no certificate: the last plan or apply did not find every node up to date, or the pipeline does not qualify (its reason was given then)")
	}
	b, err := os.ReadFile(quickPath(stateDir))
	if err != nil {
		return nil, why.miss("the certificate: %v", err)
	}
	c, ok := decodeQuickCert(b)
	if !ok || c.Format != quickFormat {
		return nil, why.miss("the certificate is damaged or of another kiln")
	}
	lineage, serial, ok := state.ReadStamp(stateDir)
	switch {
	case !ok || lineage != c.Lineage || serial != c.Serial:
		return nil, why.miss("the state changed since the certificate (serial %d then)", c.Serial)
	case !hash.FileHolds(state.SnapshotPath(stateDir), c.State):
		return nil, why.miss("the state file was written since the certificate")
	case state.HasRunLog(stateDir):
		// An apply runs, or one died: the full plan says what it left.
		return nil, why.miss("an apply is running, or one died")
	}
	q := &quickSession{cert: c, certInfo: certInfo, root: root, stateDir: stateDir, store: state.OpenStore(stateDir), why: why}
	sealed := make(map[string]quickSource, len(c.Sources))
	for _, src := range c.Sources {
		sealed[src.Path] = src
	}
	digest := func(path string) (hash.Digest, error) {
		q.sources = append(q.sources, path)
		if src, ok := sealed[path]; ok && hash.FileHolds(path, src.Stamp) {
			return src.Digest, nil
		}
		q.unsealed.Store(true)
		return hash.File(path, q.statCache())
	}
	if quickConfigDigest(files, o, digest) != c.Config {
		return nil, why.miss("the pipeline's files, lock, variables or KILN_VAR_ environment changed")
	}
	// Environment values are hashed as key lines hash them: with the state
	// folder's secret.
	secret := state.SecretOf(stateDir)
	for _, e := range c.Env {
		if sum, err := secret.Sum([]byte(os.Getenv(e.Path))); err != nil || sum != e.Digest {
			return nil, why.miss("the environment variable %s changed", e.Path)
		}
	}
	for _, f := range c.Reads {
		if !sameRead(f, q.statCache) {
			return nil, why.miss("%s, which an expression read (%s), changed", relToRoot(root, f.Path), f.What)
		}
	}
	return q, true
}

// statCache is the stat cache, loaded when first needed: a check whose
// seals all hold never reads it.
func (q *quickSession) statCache() *hash.StatCache {
	q.statOnce.Do(func() {
		q.stat = hash.LoadStatCache(filepath.Join(q.stateDir, "cache", "stat"))
		q.statLoaded.Store(true)
	})
	return q.stat
}

// saveStat keeps what the checks hashed for the next command.
func (q *quickSession) saveStat() {
	if q.statLoaded.Load() {
		_ = q.statCache().Save(filepath.Join(q.stateDir, "cache", "stat"))
	}
}

// settle records in the certificate what a check that held has just
// read and that stat alone can now vouch for: the links folder's stamp,
// taken at start before any link was read (so the links are trusted from
// the next check on), and for each node whose seal is missing or no
// longer holds, its run folder's listing (a folder changed too recently
// when the certificate was written had none) and the seals of that folder
// and of its input files (see seal). An apply
// writes its certificate right after making its last links, when the links
// folder is still racy, so the first check after it settles them. Nothing
// is written when the stamp is racy or changed meanwhile, or when the
// certificate or the state is no longer the one checked.
func (q *quickSession) settle(links hash.Stamp, start time.Time, all bool) {
	if links.Racy(start) {
		return
	}
	if after, ok := hash.StampOf(q.store.LinksDir()); !ok || after != links {
		return
	}
	changed := q.cert.Links == nil || *q.cert.Links != links
	q.cert.Links = &links
	var sources []quickSource
	for _, path := range q.sources {
		if st, d, ok := hash.SealFile(path, q.statCache()); ok {
			sources = append(sources, quickSource{Path: path, Digest: d, Stamp: st})
		}
	}
	if !slices.Equal(sources, q.cert.Sources) {
		q.cert.Sources, changed = sources, true
	}
	var nodesChanged atomic.Bool
	parallel(len(q.cert.Nodes), func(i int) bool {
		if (all || q.reseal[i]) && q.seal(&q.cert.Nodes[i]) {
			nodesChanged.Store(true)
		}
		return true
	})
	if !changed && !nodesChanged.Load() {
		return // nothing new to trust: the certificate is not rewritten
	}
	data, ok := encodeQuickCert(q.cert)
	if !ok {
		return
	}
	path := quickPath(q.stateDir)
	now, err := os.Stat(path)
	if err != nil || !os.SameFile(now, q.certInfo) || !now.ModTime().Equal(q.certInfo.ModTime()) || now.Size() != q.certInfo.Size() {
		return // rewritten since it was read
	}
	if lineage, serial, ok := state.ReadStamp(q.stateDir); !ok || lineage != q.cert.Lineage || serial != q.cert.Serial || state.HasRunLog(q.stateDir) {
		return
	}
	_ = state.ReplaceFile(path, data, 0o644)
}

// seal gives n the listing of its run folder, the seal of that folder and
// of its input files, where it has none and the folder and the stat cache
// vouch for them now, and reports whether any of them changed.
func (q *quickSession) seal(n *quickNode) (changed bool) {
	before := *n
	beforeInputs := slices.Clone(n.InputSeals)
	defer func() {
		changed = n.Sealed != before.Sealed || n.Listing != before.Listing || !slices.Equal(n.Seal, before.Seal) || !slices.Equal(n.InputSeals, beforeInputs)
	}()
	dir := q.store.RunPath(n.Entry)
	sealTree := func() {
		if n.Listing != nil && len(n.Outputs) == 0 {
			seal, d, ok := hash.SealTree(dir, n.Listing, q.statCache())
			if ok && d.String() == n.Digest {
				n.Sealed, n.Seal = true, seal
			}
		}
	}
	if dir != "" && !(n.Sealed && hash.SealHolds(dir, n.Listing, n.Seal)) {
		n.Sealed, n.Seal = false, nil
		sealTree() // with the listing the certificate has, if it still vouches
		// A listing stands only for itself (the folder's stamp is in it),
		// so a fresh one may replace one that no longer vouches.
		if !n.Sealed {
			if l, ok := hash.ListFolder(dir); ok {
				n.Listing = l
				sealTree()
			}
		}
	}
	if len(n.InputSeals) != len(n.Inputs) {
		n.InputSeals = make([]hash.Stamp, len(n.Inputs))
	}
	for i, in := range n.Inputs {
		if n.InputSeals[i] != (hash.Stamp{}) && hash.FileHolds(in.Path, n.InputSeals[i]) {
			continue
		}
		st, d, ok := hash.SealFile(in.Path, q.statCache())
		if !ok || d.String() != in.Digest {
			st = hash.Stamp{}
		}
		n.InputSeals[i] = st
	}
	return
}

// sealHolds reports whether n's run folder dir still has its seal, with a
// path relative to the store folder when it is held open.
func (q *quickSession) sealHolds(n *quickNode) bool {
	shard, ok := state.RunShard(n.Entry)
	if !ok {
		return false
	}
	if q.storeRoot != nil {
		return hash.SealHoldsAt(q.storeRoot, n.Listing, n.Seal, shard, n.Entry)
	}
	return hash.SealHolds(q.store.RunPath(n.Entry), n.Listing, n.Seal)
}

// checkQuickNode re-checks one node's link, programs, globs, inputs and
// outputs; links trusted means the links folder's stamp vouches for n.Link.
func (q *quickSession) checkQuickNode(i int, linksTrusted bool) bool {
	n := &q.cert.Nodes[i]
	// A seal that does not hold, or one that may be made now (a regular
	// input or a listed run folder without one), is made again by settle
	// once the check has held; a node that can never be sealed (a folder
	// input, a run folder with a subfolder, outputs outside it) is not
	// flagged, so that settle does not run for it on every check.
	reseal := func() {
		q.reseal[i] = true
		q.unsealed.Store(true)
	}
	if !linksTrusted {
		if key, ok := q.store.Linked(n.Link); !ok || key != n.Entry {
			return q.why.miss("%s: its stable link does not lead to its result", n.Link)
		}
	}
	if !q.programsHold(n) || !q.globsHold(n) {
		return false
	}
	for j, in := range n.Inputs {
		if j < len(n.InputSeals) && n.InputSeals[j] != (hash.Stamp{}) {
			if hash.FileHolds(in.Path, n.InputSeals[j]) {
				continue
			}
			reseal()
		}
		d, err := n.digest(j, q.statCache())
		if err != nil || d != in.Digest {
			return q.why.miss("%s: input %s changed", n.Link, relToRoot(q.root, in.Path))
		}
		if fi, err := os.Lstat(in.Path); err == nil && fi.Mode().IsRegular() {
			reseal() // a regular file without a seal: one may be made now
		}
	}
	if n.Sealed {
		if q.sealHolds(n) {
			return true
		}
		reseal()
	} else if n.Listing != nil && len(n.Outputs) == 0 {
		reseal() // listed, no outputs outside: one may be made now
	}
	dir := q.store.RunPath(n.Entry)
	if dir == "" {
		return q.why.miss("%s: its result is not in the store", n.Link)
	}
	// One worker: the nodes are checked in parallel already.
	got, _, err := plan.DirDigestWith(dir, q.root, n.Outputs, q.statCache(), hash.TreeOptions{Listing: n.Listing, Workers: 1})
	if err != nil || got != n.Digest {
		return q.why.miss("%s: its result changed outside kiln", n.Link)
	}
	return true
}

// programsHold reports whether n's programs are found again as they were.
func (q *quickSession) programsHold(n *quickNode) bool {
	for _, pr := range n.Programs {
		line, err := plan.ResolveProgram(q.root, q.stateDir, pr.Name, pr.Dir, []string{"PATH=" + pr.Path}, q.statCache())
		if err != nil || line != pr.Line {
			return q.why.miss("%s: its program %s is found elsewhere or changed", n.Link, pr.Name)
		}
	}
	return true
}

// globsHold reports whether n's input patterns match the files they did.
func (q *quickSession) globsHold(n *quickNode) bool {
	for _, g := range n.Globs {
		got, err := plan.ResolveInputs(q.root, []string{g.Pattern})
		if err != nil || !slices.Equal(got, g.Matches) {
			return q.why.miss("%s: the files input %q matches changed", n.Link, g.Pattern)
		}
	}
	return true
}

// sameRead reports whether a file still reads as an expression saw it.
func sameRead(f config.FileRead, stat func() *hash.StatCache) bool {
	switch f.What {
	case config.ReadExists:
		fi, err := os.Stat(f.Path)
		return strconv.FormatBool(err == nil && fi.Mode().IsRegular()) == f.Seen
	case config.ReadFileset, config.ReadWildcards:
		return config.Relist(f)
	case config.ReadContent:
		if f.Seen == config.ReadFailed {
			_, err := os.ReadFile(f.Path)
			return err != nil
		}
		d, err := hash.File(f.Path, stat())
		return err == nil && d.String() == f.Seen
	}
	return false
}

// inputPath is the file an input or file key line's subject names; false
// for one inside the state folder (an upstream's output, covered by its
// digest).
func inputPath(root, subject string) (string, bool) {
	if strings.HasPrefix(subject, "$KILN_STATE") {
		return "", false
	}
	path := strings.Replace(subject, "$KILN_ROOT", root, 1)
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	return path, true
}

// digest hashes the j-th of n's inputs as the key did: an input with its
// links followed, a key file as it is.
func (n *quickNode) digest(j int, stat *hash.StatCache) (string, error) {
	if j >= len(n.Inputs)-n.KeyFiles {
		return digestAny(n.Inputs[j].Path, stat)
	}
	return plan.InputDigest(n.Inputs[j].Path, stat)
}

func digestAny(p string, stat *hash.StatCache) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	var d hash.Digest
	if fi.Mode().IsRegular() {
		d, err = hash.File(p, stat)
	} else {
		d, err = hash.Tree(p, stat)
	}
	return d.String(), err
}

// writeQuick records the certificate after kiln found every node up to
// date, or removes a stale one when the pipeline does not qualify.
func (w *Workspace) writeQuick() {
	path := quickPath(w.pipeline.StateDir)
	why := newWhyNot("the certificate", w.opts.DebugPlan)
	cert, ok := w.quickCert(why)
	if !ok {
		_ = os.Remove(path)
		_ = os.Remove(quickKeysPath(w.pipeline.StateDir))
		return
	}
	data, ok := encodeQuickCert(cert)
	if !ok {
		why.miss("a run folder holds what the certificate does not keep")
		_ = os.Remove(path)
		_ = os.Remove(quickKeysPath(w.pipeline.StateDir))
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		_ = state.ReplaceFile(path, data, 0o644)
		why.took(fmt.Sprintf("written for %d nodes", len(cert.Nodes)))
		w.writeQuickKeys(cert)
	}
}

func (w *Workspace) quickCert(why *whyNot) (*quickCert, bool) {
	if len(w.opts.Targets) > 0 || len(w.opts.Replace) > 0 {
		return nil, why.miss("-target or -replace narrows the plan")
	}
	p := w.pipeline
	lineage, serial, ok := state.ReadStamp(p.StateDir)
	if !ok {
		return nil, why.miss("the state file's first line does not read")
	}
	files := make([]string, len(p.FileNames))
	for i, f := range p.FileNames {
		files[i] = filepath.Join(p.Root, f)
	}
	digest := func(path string) (hash.Digest, error) { return hash.File(path, w.stat) }
	stamp, ok := hash.FileStamp(state.SnapshotPath(p.StateDir))
	if !ok {
		return nil, why.miss("no state file")
	}
	c := &quickCert{Format: quickFormat, Config: quickConfigDigest(files, w.opts, digest), Lineage: lineage, Serial: serial, State: stamp}
	// The files exactly as the plan read them: a file the apply wrote
	// since (an in-place output that a count depends on) fails the check.
	reads, consistent := p.FilesRead()
	if !consistent {
		return nil, why.miss("a file an expression read was read twice with different results")
	}
	c.Reads = reads
	nodes, complete := p.Concrete()
	if !complete {
		return nil, why.miss("a dynamic block is not expanded yet")
	}
	// The nodes are read in parallel, each with the environment variables
	// its key read; where the refusal is to be said, one by one, so that
	// the first node in order that cannot be checked is the one named.
	c.Nodes = make([]quickNode, len(nodes))
	envs := make([]map[string]string, len(nodes))
	node := func(i int) bool {
		envs[i] = map[string]string{}
		var ok bool
		c.Nodes[i], ok = w.quickNodeOf(nodes[i], envs[i], why)
		return ok
	}
	if why.saying() {
		for i := range nodes {
			if !node(i) {
				return nil, false
			}
		}
	} else if !parallel(len(nodes), node) {
		return nil, false
	}
	env := map[string]string{}
	for _, e := range envs {
		maps.Copy(env, e)
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		c.Env = append(c.Env, quickFile{Path: k, Digest: env[k]})
	}
	return c, true
}

// quickNodeOf is what the certificate holds of n, adding to env the
// digests of the environment variables its key read; false when n cannot
// be checked without the full plan.
func (w *Workspace) quickNodeOf(n *config.Node, env map[string]string, why *whyNot) (quickNode, bool) {
	p := w.pipeline
	k := n.Block.Kind
	if _, probes := k.(kind.Prober); probes {
		return quickNode{}, why.miss("%s: kind %s probes the machine at every plan", n.Addr, k.Name())
	}
	if _, verifies := k.(kind.Verifier); verifies {
		return quickNode{}, why.miss("%s: kind %s verifies its result at every plan", n.Addr, k.Name())
	}
	switch r := w.state.Records[n.Addr.String()]; {
	case n.Meta.AlwaysRun:
		return quickNode{}, why.miss("%s: always_run", n.Addr)
	case n.Meta.Unsandboxed != "":
		// The plan names the reason, which the certificate does not hold.
		return quickNode{}, why.miss("%s: sandbox = false", n.Addr)
	case !r.Good() || r.Failure != nil || r.Entry == "":
		return quickNode{}, why.miss("%s: no good result", n.Addr)
	case r.Attrs[plan.AttrDigestBy] == "kind":
		return quickNode{}, why.miss("%s: its kind gives its digest", n.Addr)
	}
	r := w.state.Records[n.Addr.String()]
	qn := quickNode{Link: n.Addr.FileName(), Entry: r.Entry, Digest: r.Digest}
	e, decided := w.evals.of(n.Addr)
	if !decided {
		return quickNode{}, why.miss("%s: not decided by this plan or apply", n.Addr)
	}
	if pr, ok := e.program(programLine(r)); !ok {
		return quickNode{}, why.miss("%s: its program cannot be found again without the full plan", n.Addr)
	} else if pr != nil {
		qn.Programs = append(qn.Programs, *pr)
		// The PATH the program was found on starts from kiln's own.
		sum, err := state.SecretOf(p.StateDir).Sum([]byte(os.Getenv("PATH")))
		if err != nil {
			return quickNode{}, why.miss("%v", err)
		}
		env["PATH"] = sum
	}
	for _, pat := range e.patterns {
		m, err := plan.ResolveInputs(p.Root, []string{pat})
		if err != nil {
			return quickNode{}, why.miss("%s: %v", n.Addr, err)
		}
		qn.Globs = append(qn.Globs, quickGlob{Pattern: pat, Matches: m})
	}
	qn.Listing, _ = hash.ListFolder(w.store.RunPath(r.Entry))
	if len(r.Outputs) > 0 {
		qn.Outputs = state.OutputPaths(p.Root, r.Outputs)
	}
	var keyFiles []quickFile
	for _, l := range r.KeyLines {
		label, subject, value := plan.SplitKeyLine(l)
		switch label {
		case "input":
			if path, ok := inputPath(p.Root, subject); ok {
				qn.Inputs = append(qn.Inputs, quickFile{Path: path, Digest: value})
			}
		case "file":
			if path, ok := inputPath(p.Root, subject); ok {
				keyFiles = append(keyFiles, quickFile{Path: path, Digest: value})
			}
		case "env":
			env[subject] = value
		}
	}
	qn.Inputs, qn.KeyFiles = append(qn.Inputs, keyFiles...), len(keyFiles)
	return qn, true
}

// programLine is the value of r's program key line; empty for none.
func programLine(r *state.Record) string {
	line := ""
	for _, l := range r.KeyLines {
		if label, _, _ := plan.SplitKeyLine(l); label == "program" {
			line = strings.TrimPrefix(l, "program ")
		}
	}
	return line
}
