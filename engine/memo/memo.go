package memo

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/lockfile"
)

// Format names the file's encoding and what it holds; a memo of another
// format is no memo.
const Format = "kiln-memo-3"

// Memo is the file: a header for the whole pipeline and a record per node.
type Memo struct {
	Format string
	// Config digests the pipeline's files, lock, variable files, variables
	// and KILN_VAR_ environment (configDigest) with kiln's version.
	Config string
	// Shared digests what every node may read (sharedDigest): while it
	// holds, a node whose own Config holds is as the memo recorded it,
	// whatever else changed in the pipeline's files and variables.
	Shared  string
	Lineage string
	Serial  uint64
	// State is the stamp of the state file the plan read: any write to it
	// since (a truncation, a flipped bit, a hand edit) leaves the full
	// path, which checks the file's checksum. Its lineage and serial alone
	// are in its first line, which such damage may leave whole.
	State hash.Stamp
	Reads []config.FileRead // as the plan read them
	Env   []File            // name, the state folder's keyed sum of the value
	// Sources seal the files the configuration's digest reads (pipeline
	// files, lock, variable files) by their stamps, as settle found them.
	Sources []Source
	// Links is the stamp of the stable links' folder (.kiln/out) taken,
	// not racy, before every node's link was read and found as recorded,
	// and unchanged after: while the folder's stamp is this one, no link
	// points elsewhere, and the links need not be read (see settle).
	Links *hash.Stamp
	// Replans says why a plan after an edit cannot be made from this memo
	// ("" when it can): what only the pipeline's files say, such as a
	// remote cache to ask or a pool a host reports.
	Replans string
	// Order is the node indexes in the order a plan decides them.
	Order []int32
	Nodes []Node
}

// File is a path and a digest.
type File struct{ Path, Digest string }

// Source is a file whose digest the stat cache vouched for under its stamp
// (hash.SealFile).
type Source struct {
	Path   string
	Digest hash.Digest
	Stamp  hash.Stamp
}

// Node is what one node's decision rested on, and what deciding it again
// from its recorded key lines takes.
type Node struct {
	Addr string
	Kind string
	// Config is the identity of the node's configuration: its block, the
	// locals and variables it names, its instance and its upstreams'
	// addresses (config.NodeIdentity).
	Config string
	// Full, when not "", is why the node is decided by the full plan at
	// every plan (its kind probes the machine, always_run, ...): the memo
	// then holds only its Addr, Kind and Value.
	Full string
	// Value is the digest of the node's value as its dependents read it
	// (valueDigest): a dependent is up to date as recorded only while each
	// of its upstreams' values has the digest recorded here.
	Value string
	// Exports are the kind's exports, for the node's value when the memo
	// vouches for it (plan.Decision.Exports).
	Exports []Export
	Link    string // its stable link's name in .kiln/out
	Entry   string
	Digest  string
	// Inputs are the files of the key's input lines, hashed with their
	// links followed (plan.InputDigest), then the KeyFiles files of its
	// file lines, hashed as they are (digestAny).
	Inputs   []File
	KeyFiles int
	Globs    []Glob
	Outputs  []string // its in-place outputs, absolute
	Programs []Program
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
	// Deps are the indexes of its upstreams, in the node's Deps order.
	Deps      []int32
	Resources map[string]int64
	Resumable bool
	// Rekeyable: the node reads nothing of its upstreams but their out
	// paths, and has no input written in place by another node, no
	// upstream of all instances, no instance files, no key line that
	// names where its configuration came from: a new input digest or
	// upstream digest is all that changes its key lines (plan.Rekey).
	Rekeyable bool
}

// Export is one of a kind's exports: its cty type and value as JSON.
type Export struct{ Name, Type, Value string }

// Program is how a node's program was found and the program key line it
// gave (its text, hash.Line.Text): found again the same way, it must give
// the same line.
type Program struct {
	Name, Dir, Path string // Path: the PATH searched
	Line            string
}

// Glob is an input pattern and the files it matched: a new file that
// matches must be noticed, not only a changed one.
type Glob struct {
	Pattern string
	Matches []string
}

// Path is where the memo of the state folder stateDir is kept.
func Path(stateDir string) string { return filepath.Join(stateDir, "cache", "memo") }

// configDigest identifies a configuration from its raw inputs: the
// pipeline's files, its lock, the variable files, the -var values and the
// KILN_VAR_ environment. The files are hashed by digest: through the stat
// cache (hash.File), or by a seal, so that a large pipeline file or lock
// that has not changed is not read again.
func configDigest(version string, files []string, vars map[string]string, varFiles []string, digest func(path string) (hash.Digest, error)) string {
	lines := make([]string, 0, len(files)+len(vars)+len(varFiles))
	for _, f := range files {
		d, err := digest(f)
		if err != nil {
			return ""
		}
		lines = append(lines, "file "+f+" "+d.String())
	}
	lockDir := ""
	if len(files) > 0 {
		lockDir = filepath.Dir(files[0])
	}
	for _, f := range varFiles {
		d, err := digest(f)
		if err != nil {
			return ""
		}
		lines = append(lines, "varfile "+f+" "+d.String())
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		lines = append(lines, "var "+k+" "+hash.Bytes([]byte(vars[k])).String())
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
	return withLock(version, lines, lockDir, digest)
}

// sharedDigest identifies what every node of the loaded pipeline p reads
// beyond its own block and the locals and variables it names: the blocks
// config.SharedIdentity covers, and the lock. "" when it cannot be told.
func sharedDigest(version string, p *config.Pipeline, digest func(path string) (hash.Digest, error)) string {
	shared := p.SharedIdentity()
	if shared == "" {
		return ""
	}
	return withLock(version, []string{"shared " + shared}, p.Root, digest)
}

// withLock digests lines with kiln's version and the lock file in lockDir
// (none when ""), which pins what nodes resolve: a changed lock changes
// keys.
func withLock(version string, lines []string, lockDir string, digest func(path string) (hash.Digest, error)) string {
	head := []string{"kiln " + version, "key " + hash.FormatVersion}
	if lockDir != "" {
		if d, err := digest(lockfile.Path(lockDir)); err == nil {
			head = append(head, "lock "+d.String())
		}
	}
	return hash.Lines(append(head, lines...)...).String()
}

// Read is the memo kept in stateDir; false when there is none, or it is
// damaged or of another format.
func Read(stateDir string) (*Memo, bool) {
	b, err := os.ReadFile(Path(stateDir))
	if err != nil {
		return nil, false
	}
	return decode(b)
}

// Remove deletes the memo of stateDir, and the files of earlier formats.
func Remove(stateDir string) {
	for _, name := range []string{"memo", "noop", "noop.keys"} {
		_ = os.Remove(filepath.Join(stateDir, "cache", name))
	}
}
