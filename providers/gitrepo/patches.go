package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
)

// patchFile is one patch as it enters the digest and is applied.
type patchFile struct {
	label    string // the path relative to the pipeline folder when inside it, else as written
	contents []byte
	sum      string // sha256 of contents, hex
}

// readPatches reads every patch before any git work, so a missing file fails
// the build at once.
func readPatches(root string, paths []string) ([]patchFile, error) {
	var out []patchFile
	for _, p := range paths {
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(root, p)
		}
		b, err := os.ReadFile(full)
		if err != nil {
			return nil, fmt.Errorf("git_repo patch %s: %w; check the path (relative paths start at the pipeline folder %s)", p, err, root)
		}
		out = append(out, patchFile{label: patchLabel(root, p), contents: b, sum: hash.Bytes(b).String()})
	}
	return out, nil
}

// patchLabel names a patch without the absolute location of the pipeline,
// so the digest is the same wherever the pipeline is checked out.
func patchLabel(root, p string) string {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}
