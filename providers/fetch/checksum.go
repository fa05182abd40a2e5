package fetch

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// parseChecksum reads "sha256:HEX" and returns the hex digest in lower case.
func parseChecksum(s string) (string, error) {
	algo, sum, ok := strings.Cut(s, ":")
	if !ok || algo != "sha256" {
		return "", fmt.Errorf("checksum %q must be written \"sha256:<64 hex digits>\" (other algorithms are not supported)", s)
	}
	sum = strings.ToLower(sum)
	if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("checksum %q must be written \"sha256:<64 hex digits>\"", s)
	}
	return sum, nil
}

// fileSHA256 is the hex sha256 of a file's contents.
func fileSHA256(name string) (string, error) {
	d, err := hash.FileSum(name)
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

// sha256Hex is the hex sha256 of s.
func sha256Hex(s string) string { return hash.Bytes([]byte(s)).String() }

// gitBlobID is the git object id of a file's contents: the sha1 of
// "blob SIZE\x00" and the contents, as the hub lists it for files outside LFS.
func gitBlobID(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", fi.Size())
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
