package fetch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// archiveFormat tells an archive's type from its file name.
func archiveFormat(name string) (string, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		return "tar.gz", nil
	case strings.HasSuffix(lower, ".tar.xz"), strings.HasSuffix(lower, ".txz"):
		return "tar.xz", nil
	case strings.HasSuffix(lower, ".tar"):
		return "tar", nil
	case strings.HasSuffix(lower, ".zip"):
		return "zip", nil
	}
	return "", fmt.Errorf("extract: cannot tell the archive type of %q from its name; supported are .tar, .tar.gz, .tgz, .tar.xz, .txz and .zip — set filename to a name with one of them", name)
}

// extractLimits bound what an archive may unpack to.
type extractLimits struct {
	maxBytes int64  // total bytes of the files written
	maxFiles int    // entries of any type
	setting  string // where maxBytes comes from and how to raise it, for the error
}

// extractArchive unpacks the archive file src of the given format into dst.
func extractArchive(src, format, dst string, lim extractLimits, log io.Writer) error {
	root, err := filepath.EvalSymlinks(dst)
	if err != nil {
		return fmt.Errorf("resolve the output folder: %w", err)
	}
	x := &extractor{root: root, lim: lim, log: log}
	switch format {
	case "zip":
		err = x.zip(src)
	default:
		err = x.tar(src, format)
	}
	if err != nil {
		return err
	}
	return x.checkLinks()
}

// extractor writes archive entries under root. It never writes through a
// symlink, so no entry lands outside root; symlinks it creates must resolve
// inside root, which checkLinks verifies once all entries exist.
type extractor struct {
	root    string
	lim     extractLimits
	log     io.Writer
	written int64
	entries int
	links   []string // relative paths of the symlinks created
}

// entry counts an entry and checks its name: relative, without "..". It
// returns the cleaned relative path, "." for the root itself.
func (x *extractor) entry(name string) (string, error) {
	x.entries++
	if x.lim.maxFiles > 0 && x.entries > x.lim.maxFiles {
		return "", fmt.Errorf("the archive holds more than %d entries", x.lim.maxFiles)
	}
	if name == "" {
		return "", errors.New("the archive holds an entry without a name")
	}
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("refusing entry %q: absolute path", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("refusing entry %q: it climbs out with \"..\"", name)
		}
	}
	return path.Clean(name), nil
}

// abs is the file system path of a relative entry path.
func (x *extractor) abs(rel string) string {
	return filepath.Join(x.root, filepath.FromSlash(rel))
}

// mkdirs creates rel and its parents, refusing to pass through a symlink or
// a file.
func (x *extractor) mkdirs(rel string) error {
	if rel == "." {
		return nil
	}
	cur := x.root
	for _, part := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		case fi.Mode()&os.ModeSymlink != 0:
			return fmt.Errorf("refusing entry %q: it would be written through the symlink %q", rel, part)
		case !fi.IsDir():
			return fmt.Errorf("refusing entry %q: %q is a file, not a folder", rel, part)
		}
	}
	return nil
}

// clear makes room for a new non-folder entry at rel, replacing an earlier
// entry of the same name unless it is a folder.
func (x *extractor) clear(rel string) error {
	if err := x.mkdirs(path.Dir(rel)); err != nil {
		return err
	}
	fi, err := os.Lstat(x.abs(rel))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("refusing entry %q: a folder of that name exists", rel)
	}
	return os.Remove(x.abs(rel))
}

// file writes a regular file from r, within the byte limit.
func (x *extractor) file(rel string, r io.Reader, mode os.FileMode) error {
	if err := x.clear(rel); err != nil {
		return err
	}
	out, err := os.OpenFile(x.abs(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, mode&0o777|0o400)
	if err != nil {
		return err
	}
	src := r
	if x.lim.maxBytes > 0 {
		src = io.LimitReader(r, x.lim.maxBytes-x.written+1)
	}
	n, err := io.Copy(out, src)
	x.written += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %q: %w", rel, err)
	}
	if x.lim.maxBytes > 0 && x.written > x.lim.maxBytes {
		return fmt.Errorf("the archive unpacks to more than %d bytes (%s)", x.lim.maxBytes, x.lim.setting)
	}
	return nil
}

// symlink creates a relative symlink whose target stays inside root.
func (x *extractor) symlink(rel, target string) error {
	if target == "" || filepath.IsAbs(target) {
		return fmt.Errorf("refusing symlink %q -> %q: the target must be a relative path inside the archive", rel, target)
	}
	if dest := path.Join(path.Dir(rel), target); dest == ".." || strings.HasPrefix(dest, "../") {
		return fmt.Errorf("refusing symlink %q -> %q: it points outside the output folder", rel, target)
	}
	if err := x.clear(rel); err != nil {
		return err
	}
	x.links = append(x.links, rel)
	return os.Symlink(target, x.abs(rel))
}

// hardlink links rel to an earlier regular file of the archive.
func (x *extractor) hardlink(rel, linkname string) error {
	old, err := x.entry(linkname)
	x.entries-- // the name of a link target is not an entry
	if err != nil {
		return fmt.Errorf("refusing hard link %q: %w", rel, err)
	}
	fi, err := os.Lstat(x.abs(old))
	if err != nil || !fi.Mode().IsRegular() || x.mkdirs(path.Dir(old)) != nil {
		return fmt.Errorf("refusing hard link %q -> %q: the target is not an earlier regular file of the archive", rel, linkname)
	}
	if err := x.clear(rel); err != nil {
		return err
	}
	return os.Link(x.abs(old), x.abs(rel))
}

// checkLinks verifies that every symlink created resolves inside root, now
// that all the entries they may pass through exist.
func (x *extractor) checkLinks() error {
	for _, rel := range x.links {
		real, err := filepath.EvalSymlinks(x.abs(rel))
		if err != nil {
			continue // dangling, and its lexical target is inside
		}
		if real != x.root && !strings.HasPrefix(real, x.root+string(filepath.Separator)) {
			return fmt.Errorf("refusing symlink %q: it resolves to %s, outside the output folder", rel, real)
		}
	}
	return nil
}
