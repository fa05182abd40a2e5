package remotecache

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
)

// Format names the record schema; a record of another format is a miss.
// Format 2: files larger than hash.ChunkSize have kiln's chunked digest and
// are stored as one blob per chunk.
const Format = "kiln-cache-record/2"

// Record is the action-cache entry of one node result.
type Record struct {
	Format string `json:"format"`
	Key    string `json:"key"`    // the node key (hex), also the /ac/ name
	Digest string `json:"digest"` // the node's digest as kiln records it
	Tree   string `json:"tree"`   // hash.EntriesDigest of Files
	Kind   string `json:"kind"`
	Addr   string `json:"addr"` // where it was built, for messages only
	Host   string `json:"host,omitempty"`
	// Deterministic is false when the node says its result may differ
	// between runs (training): a pull then takes someone else's result.
	Deterministic bool              `json:"deterministic"`
	Built         time.Time         `json:"built"`
	Attrs         map[string]string `json:"attrs,omitempty"`
	// Sigs are the signatures of the record (Sign), NAME:BASE64 each.
	Sigs []string `json:"sigs,omitempty"`
	// Files come last, after every field a signature covers, so a reader
	// checks the signature before it reads the list.
	Files []File `json:"files"`
	// SignedBy names the trusted key whose signature Lookup verified; it
	// is never stored.
	SignedBy string `json:"-"`
	// entry is the ActionResult that named the record, when it was read
	// through one (Lookup checks that they agree).
	entry *actionResult
}

// File is one entry of a record's tree.
type File struct {
	Path string `json:"path"`
	Type string `json:"type"` // "d", "f" or "l"
	Exec bool   `json:"exec,omitempty"`
	Size int64  `json:"size,omitempty"`
	// SHA256 is the file's digest as kiln computes it (hash.File): the
	// SHA-256 of its content, or for a file larger than hash.ChunkSize the
	// chunked digest, whose chunks' SHA-256 sums Chunks lists. Each chunk,
	// or the whole smaller file, is a blob under /cas/ by its SHA-256.
	SHA256 string   `json:"sha256,omitempty"`
	Chunks []string `json:"chunks,omitempty"`
	Target string   `json:"target,omitempty"`
}

// FilesOf converts a manifest (hash.Manifest) into record files.
func FilesOf(entries []hash.Entry) []File {
	out := make([]File, len(entries))
	for i, e := range entries {
		f := File{Path: e.Path, Type: string(e.Kind)}
		switch e.Kind {
		case 'f':
			f.Exec, f.Size, f.SHA256 = e.Exec, e.Size, e.Digest.String()
		case 'l':
			f.Target = e.Target
		}
		out[i] = f
	}
	return out
}

// Entries converts the record's files back into a manifest, checking each.
func (r *Record) Entries() ([]hash.Entry, error) {
	out := make([]hash.Entry, len(r.Files))
	for i, f := range r.Files {
		e := hash.Entry{Path: f.Path}
		switch f.Type {
		case "d":
			e.Kind = 'd'
		case "l":
			e.Kind, e.Target = 'l', f.Target
		case "f":
			d, err := hash.ParseDigest(f.SHA256)
			if err != nil {
				return nil, fmt.Errorf("file %s: %w", f.Path, err)
			}
			if f.Size < 0 {
				return nil, fmt.Errorf("file %s: negative size", f.Path)
			}
			if err := f.checkChunks(); err != nil {
				return nil, err
			}
			e.Kind, e.Exec, e.Size, e.Digest = 'f', f.Exec, f.Size, d
		default:
			return nil, fmt.Errorf("file %s: unknown type %q", f.Path, f.Type)
		}
		out[i] = e
	}
	return out, nil
}

// Check verifies that the record is well formed and describes a tree that
// can be written under a folder: every path relative, clean and inside it,
// sorted and unique, no path below a symlink of the record or below a
// file, and the listed files giving the recorded tree digest. A record that
// fails is never fetched.
func (r *Record) Check(key string) error {
	if r.Format != Format {
		return fmt.Errorf("record format %q, want %q", r.Format, Format)
	}
	if r.Key != key {
		return fmt.Errorf("record names key %s, asked for %s", r.Key, key)
	}
	entries, err := r.Entries()
	if err != nil {
		return err
	}
	notDir := map[string]bool{}
	for i, e := range entries {
		if err := checkPath(e.Path); err != nil {
			return err
		}
		if i > 0 && entries[i-1].Path >= e.Path {
			return fmt.Errorf("paths not sorted or repeated at %q", e.Path)
		}
		for p := path.Dir(e.Path); p != "."; p = path.Dir(p) {
			if notDir[p] {
				return fmt.Errorf("%q lies below %q, which is not a folder", e.Path, p)
			}
		}
		if e.Kind != 'd' {
			notDir[e.Path] = true
		}
	}
	tree, err := hash.ParseDigest(r.Tree)
	if err != nil {
		return fmt.Errorf("tree digest: %w", err)
	}
	if got := hash.EntriesDigest(entries); got != tree {
		return fmt.Errorf("the files listed give tree digest %s, the record says %s", got.Short(), tree.Short())
	}
	return nil
}

func checkPath(p string) error {
	if p == "" || p == "." || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsRune(p, 0) {
		return fmt.Errorf("path %q is not a clean relative path inside the tree", p)
	}
	return nil
}
