package refs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// KeyLen is the length of a key in hex digits (a SHA-256).
const KeyLen = 64

// maxName is the longest node file name a mark after "out/" is read to
// (addr.MaxFileName).
const maxName = 200

// Limit is the most bytes Scan reads: a larger result (a model's weights,
// a checkpoint) is Unknown rather than read a second time after hashing.
const Limit = 1 << 30

// MaxCandidates is the most marks Scan keeps: a result that holds more (a
// manifest of hashes) is Unknown.
const MaxCandidates = 10000

// ErrUnknown is Scan's answer for a result it did not read to the end.
var ErrUnknown = errors.New("the result was not scanned for the results it names")

// Found are the marks a scan found: candidate keys and node file names.
type Found struct {
	Keys  map[string]bool
	Names map[string]bool
}

// NewFound is an empty Found.
func NewFound() *Found {
	return &Found{Keys: map[string]bool{}, Names: map[string]bool{}}
}

func (f *Found) size() int { return len(f.Keys) + len(f.Names) }

// Scan reads each path (a folder, a file or a symbolic link, which is not
// followed; a missing path is skipped) into f: the content of every regular
// file and the text of every link. It fails with ErrUnknown where the files
// hold more than Limit bytes, which it learns before reading any, or more
// than MaxCandidates marks.
func Scan(f *Found, paths ...string) error {
	var files []string
	var size, largest int64
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			switch t := d.Type(); {
			case t.IsRegular():
				info, err := d.Info()
				if err != nil {
					return err
				}
				if size += info.Size(); size > Limit {
					return ErrUnknown
				}
				files = append(files, path)
				largest = max(largest, info.Size())
			case t&fs.ModeSymlink != 0:
				target, err := os.Readlink(path)
				if err != nil {
					return err
				}
				String(f, target)
			}
			return nil
		})
		if err != nil {
			return scanError(p, err)
		}
	}
	// A buffer the size of the largest file, up to a chunk: most results
	// are a few small files, scanned one after another.
	s := scanner{found: f, buf: make([]byte, 0, int(min(largest+1, chunk))+carry)}
	for _, path := range files {
		if err := s.file(path); err != nil {
			return scanError(path, err)
		}
	}
	return s.check()
}

func scanError(path string, err error) error {
	if errors.Is(err, ErrUnknown) {
		return err
	}
	return fmt.Errorf("scanning %s for the results it names: %w", path, err)
}

// String adds the marks s holds to f.
func String(f *Found, s string) { marks(f, []byte(s)) }

const (
	chunk = 1 << 20
	carry = maxName + 4 // what a mark cut by a read's end may need of it
)

type scanner struct {
	found *Found
	buf   []byte
	read  int64
}

// file scans the file at path, a chunk at a time; the end of each chunk is
// scanned again with the next, so a mark across the two is found.
func (s *scanner) file(path string) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	s.buf = s.buf[:0]
	for {
		n, err := io.ReadFull(r, s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if s.read += int64(n); s.read > Limit { // a file that grew since it was listed
			return ErrUnknown
		}
		marks(s.found, s.buf)
		if err := s.check(); err != nil {
			return err
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		kept := copy(s.buf, s.buf[max(0, len(s.buf)-carry):])
		s.buf = s.buf[:kept]
	}
}

func (s *scanner) check() error {
	if s.found.size() > MaxCandidates {
		return ErrUnknown
	}
	return nil
}

var (
	isHex     [256]bool
	endsName  [256]bool
	outMarker = []byte("out/")
)

func init() {
	for _, c := range []byte("0123456789abcdef") {
		isHex[c] = true
	}
	// A node's file name holds letters, digits and . _ - [ ] % ~ only.
	for c := range 256 {
		b := byte(c)
		name := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || bytes.IndexByte([]byte("._-[]%~"), b) >= 0
		endsName[c] = !name
	}
}

// marks adds to f every run of KeyLen hex digits in b (each window of a
// longer run) and every name after "out/".
func marks(f *Found, b []byte) {
	hexWindows(f, b)
	for rest := b; ; {
		i := bytes.Index(rest, outMarker)
		if i < 0 {
			break
		}
		rest = rest[i+len(outMarker):]
		n := 0
		for n < len(rest) && n < maxName && !endsName[rest[n]] {
			n++
		}
		if n > 0 {
			f.Names[string(rest[:n])] = true
		}
	}
}

// hexWindows adds each window of KeyLen hex digits in b. A window is looked
// at from its last byte: where that is not a hex digit, no window holding it
// is, and the search moves past it, so most bytes of data without long hex
// runs are never read.
func hexWindows(f *Found, b []byte) {
	for i := 0; i+KeyLen <= len(b); {
		last := i + KeyLen - 1
		if !isHex[b[last]] {
			i = last + 1
			continue
		}
		j := last - 1
		for j >= i && isHex[b[j]] {
			j--
		}
		if j >= i {
			i = j + 1
			continue
		}
		// b[i:i+KeyLen] is all hex, and so is each window after it while
		// the next byte is.
		for {
			f.Keys[string(b[i:i+KeyLen])] = true
			if i+KeyLen >= len(b) || !isHex[b[i+KeyLen]] {
				break
			}
			i++
		}
		i += KeyLen + 1
	}
}
