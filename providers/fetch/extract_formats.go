package fetch

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/ulikunitz/xz"
)

// noFollow makes opening a symlink fail instead of following it.
const noFollow = syscall.O_NOFOLLOW

// tar unpacks a tar archive, compressed per format.
func (x *extractor) tar(src, format string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	switch format {
	case "tar.gz":
		gz, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("not a gzip file: %w", err)
		}
		defer gz.Close()
		r = gz
	case "tar.xz":
		xr, err := xz.NewReader(r)
		if err != nil {
			return fmt.Errorf("not an xz file: %w", err)
		}
		r = xr
	}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the archive: %w", err)
		}
		if err := x.tarEntry(tr, hdr); err != nil {
			return err
		}
	}
}

func (x *extractor) tarEntry(tr *tar.Reader, hdr *tar.Header) error {
	switch hdr.Typeflag {
	case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
		return nil
	}
	rel, err := x.entry(hdr.Name)
	if err != nil {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return x.mkdirs(rel)
	case tar.TypeReg:
		if rel == "." {
			return fmt.Errorf("refusing entry %q: not a file name", hdr.Name)
		}
		return x.file(rel, tr, os.FileMode(hdr.Mode))
	case tar.TypeSymlink:
		return x.symlink(rel, hdr.Linkname)
	case tar.TypeLink:
		return x.hardlink(rel, hdr.Linkname)
	default:
		fmt.Fprintf(x.log, "extract: skipping %q (tar entry type %q is not a file, folder or link)\n", hdr.Name, hdr.Typeflag)
		return nil
	}
}

// zip unpacks a zip archive.
func (x *extractor) zip(src string) error {
	zr, err := zip.OpenReader(src)
	if err != nil {
		return fmt.Errorf("not a zip file: %w", err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if err := x.zipEntry(zf); err != nil {
			return err
		}
	}
	return nil
}

func (x *extractor) zipEntry(zf *zip.File) error {
	rel, err := x.entry(zf.Name)
	if err != nil {
		return err
	}
	mode := zf.Mode()
	switch {
	case mode.IsDir():
		return x.mkdirs(rel)
	case mode&os.ModeSymlink != 0:
		target, err := readZipText(zf, 4096)
		if err != nil {
			return err
		}
		return x.symlink(rel, target)
	case mode.IsRegular():
		if rel == "." {
			return fmt.Errorf("refusing entry %q: not a file name", zf.Name)
		}
		r, err := zf.Open()
		if err != nil {
			return fmt.Errorf("read %q: %w", zf.Name, err)
		}
		defer r.Close()
		return x.file(rel, r, mode.Perm())
	default:
		fmt.Fprintf(x.log, "extract: skipping %q (mode %s is not a file, folder or link)\n", zf.Name, mode)
		return nil
	}
}

// readZipText reads a small entry: a symlink's target.
func readZipText(zf *zip.File, limit int64) (string, error) {
	r, err := zf.Open()
	if err != nil {
		return "", fmt.Errorf("read %q: %w", zf.Name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return "", fmt.Errorf("read %q: %w", zf.Name, err)
	}
	if int64(len(b)) > limit {
		return "", fmt.Errorf("refusing symlink %q: its target is longer than %d bytes", zf.Name, limit)
	}
	return string(b), nil
}
