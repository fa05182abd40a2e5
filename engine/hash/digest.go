package hash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// Digest is a SHA-256 sum.
type Digest [32]byte

// String returns the digest as 64 lowercase hex characters.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Short returns the first 12 hex characters, for messages and plans.
func (d Digest) Short() string { return d.String()[:12] }

// IsZero reports whether d is the zero value (no digest recorded).
func (d Digest) IsZero() bool { return d == Digest{} }

// ParseDigest parses 64 hex characters (either case) as written by String.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	if len(s) != 2*len(d) {
		return Digest{}, fmt.Errorf("parse digest %q: want %d hex characters, got %d", s, 2*len(d), len(s))
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return Digest{}, fmt.Errorf("parse digest %q: want only hex characters 0-9 a-f: %w", s, err)
	}
	return d, nil
}

// Bytes returns the SHA-256 of b.
func Bytes(b []byte) Digest { return sha256.Sum256(b) }

// Lines returns the SHA-256 of the lines, each followed by "\n".
func Lines(lines ...string) Digest {
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
		io.WriteString(h, "\n")
	}
	var d Digest
	h.Sum(d[:0])
	return d
}

// FileSum returns the SHA-256 of a file's whole contents, as sha256sum
// prints it: a download's checksum, a script's content in a key line.
// File, the digest of a tree's file, differs above ChunkSize.
func FileSum(path string) (Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return Digest{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Digest{}, fmt.Errorf("hash %s: %w", path, err)
	}
	var d Digest
	h.Sum(d[:0])
	return d, nil
}
