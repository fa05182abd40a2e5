package remotecache

import (
	"fmt"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/hash"
)

// blob is one CAS object: a whole file, or one chunk of a file larger than
// hash.ChunkSize, which is stored as one blob per chunk so that every blob
// is addressed by the SHA-256 of its bytes (servers such as bazel-remote
// check that), while the file keeps kiln's chunked digest.
type blob struct {
	path   string // the file of the record
	off    int64  // where the blob starts in the file
	size   int64
	sha256 string
}

// blobs returns the blobs of a file entry of a record, in file order.
func (f File) blobs() []blob {
	if len(f.Chunks) == 0 {
		return []blob{{path: f.Path, size: f.Size, sha256: f.SHA256}}
	}
	out := make([]blob, len(f.Chunks))
	for k, c := range f.Chunks {
		off := int64(k) * hash.ChunkSize
		out[k] = blob{path: f.Path, off: off, size: min(hash.ChunkSize, f.Size-off), sha256: c}
	}
	return out
}

// checkChunks verifies that a file's chunk list fits its size and gives
// its digest: a file larger than hash.ChunkSize has one, others have none.
func (f File) checkChunks() error {
	if f.Size <= hash.ChunkSize {
		if len(f.Chunks) > 0 {
			return fmt.Errorf("file %s: %d bytes, so no chunks, but %d are listed", f.Path, f.Size, len(f.Chunks))
		}
		return nil
	}
	sums := make([]hash.Digest, len(f.Chunks))
	for k, c := range f.Chunks {
		d, err := hash.ParseDigest(c)
		if err != nil {
			return fmt.Errorf("file %s: chunk %d: %w", f.Path, k+1, err)
		}
		sums[k] = d
	}
	d, err := hash.ChunkedDigest(f.Size, sums)
	if err != nil {
		return fmt.Errorf("file %s: %w", f.Path, err)
	}
	if d.String() != f.SHA256 {
		return fmt.Errorf("file %s: its chunks give digest %s, the record says %s", f.Path, d.Short(), f.SHA256)
	}
	return nil
}

// addChunks lists the chunks of every file of rec larger than
// hash.ChunkSize that has no list yet, reading the file under dir; a file
// whose content no longer gives the recorded digest is an error.
func addChunks(dir string, rec *Record) error {
	for i, f := range rec.Files {
		if f.Type != "f" || f.Size <= hash.ChunkSize || len(f.Chunks) > 0 {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		size, sums, err := hash.FileChunks(p)
		if err != nil {
			return err
		}
		d, err := hash.ChunkedDigest(size, sums)
		if err != nil || size != f.Size || d.String() != f.SHA256 {
			return fmt.Errorf("%s changed since it was hashed (%d bytes, digest %s; recorded %d bytes, %s): the record is not pushed", p, size, d.Short(), f.Size, f.SHA256)
		}
		chunks := make([]string, len(sums))
		for k, s := range sums {
			chunks[k] = s.String()
		}
		rec.Files[i].Chunks = chunks
	}
	return nil
}
