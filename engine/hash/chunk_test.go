package hash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// content returns n pseudo-random bytes from seed.
func content(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8 && i+k < n; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}

// chunkedByHand is the chunked digest written out from the package doc.
func chunkedByHand(b []byte) Digest {
	var text strings.Builder
	fmt.Fprintf(&text, "chunks %d %d\n", len(b), ChunkSize)
	for off := 0; off < len(b); off += ChunkSize {
		s := sha256.Sum256(b[off:min(off+ChunkSize, len(b))])
		text.WriteString(hex.EncodeToString(s[:]) + "\n")
	}
	return Bytes([]byte(text.String()))
}

func writeBytes(t testing.TB, dir, rel string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestChunkedDigest pins the digest of files around and above ChunkSize:
// up to ChunkSize bytes the SHA-256 of the content, above it the chunked
// digest, the same from File, Tree's entries, ContentBytes and a Content
// written in uneven pieces.
func TestChunkedDigest(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, ChunkSize - 1, ChunkSize, ChunkSize + 1, 2 * ChunkSize, 2*ChunkSize + 12345} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := content(n, uint64(n))
			want := Bytes(b)
			if n > ChunkSize {
				want = chunkedByHand(b)
			}
			p := writeBytes(t, dir, "f", b)
			if got, err := File(p, nil); err != nil || got != want {
				t.Errorf("File = %s, %v; want %s", got, err, want)
			}
			if got := ContentBytes(b); got != want {
				t.Errorf("ContentBytes = %s; want %s", got, want)
			}
			c := NewContent(int64(n))
			for rest, step := b, 1; len(rest) > 0; step = step*3 + 7 {
				k := min(step, len(rest))
				c.Write(rest[:k])
				rest = rest[k:]
			}
			if got, err := c.Sum(); err != nil || got != want {
				t.Errorf("Content in pieces = %s, %v; want %s", got, err, want)
			}
			entries, err := Manifest(dir, nil)
			if err != nil || len(entries) != 1 || entries[0].Digest != want || entries[0].Size != int64(n) {
				t.Errorf("Manifest = %+v, %v; want one entry of %d bytes with digest %s", entries, err, n, want)
			}
		})
	}
	if n := 2*ChunkSize + 12345; Bytes(content(n, uint64(n))) == chunkedByHand(content(n, uint64(n))) {
		t.Error("a chunked digest equals the plain SHA-256")
	}
}

// TestContentWrongSize: a Content given more or fewer bytes than announced
// has no digest.
func TestContentWrongSize(t *testing.T) {
	for _, size := range []int64{10, ChunkSize + 10} {
		short := NewContent(size)
		short.Write(make([]byte, size-1))
		if _, err := short.Sum(); err == nil {
			t.Errorf("size %d, one byte short: want an error", size)
		}
		long := NewContent(size)
		long.Write(make([]byte, size+1))
		if _, err := long.Sum(); err == nil {
			t.Errorf("size %d, one byte more: want an error", size)
		}
	}
}

// TestBigFilesInTree hashes a tree of large and small files with one and
// with several workers (run with -race: the chunks of one file are hashed
// concurrently), and checks every entry against File.
func TestBigFilesInTree(t *testing.T) {
	dir := build(t, file("small/a.txt", "a\n"), exe("small/run.sh", "#!/bin/sh\n"))
	sizes := map[string]int{"w1.bin": 3*ChunkSize + 5, "w2.bin": ChunkSize + 1, "w3.bin": ChunkSize}
	for name, n := range sizes {
		writeBytes(t, dir, name, content(n, uint64(len(name)+n)))
	}
	var read1, read4 atomic.Int64
	one := mustTree(t, dir, nil, TreeOptions{Workers: 1, Read: &read1})
	four := mustTree(t, dir, nil, TreeOptions{Workers: 4, Read: &read4})
	if one != four {
		t.Errorf("1 worker: %s, 4 workers: %s", one, four)
	}
	total := int64(0)
	for _, n := range sizes {
		total += int64(n)
	}
	total += int64(len("a\n") + len("#!/bin/sh\n"))
	if read1.Load() != total || read4.Load() != total {
		t.Errorf("read %d and %d bytes; want %d each", read1.Load(), read4.Load(), total)
	}
	entries, err := Manifest(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Kind != 'f' {
			continue
		}
		d, err := File(filepath.Join(dir, filepath.FromSlash(e.Path)), nil)
		if err != nil || d != e.Digest {
			t.Errorf("%s: entry %s, File %s (%v)", e.Path, e.Digest, d, err)
		}
		if n, ok := sizes[e.Path]; ok && e.Size != int64(n) {
			t.Errorf("%s: size %d, want %d", e.Path, e.Size, n)
		}
	}
	if e := entries[len(entries)-1]; e.Path != "w3.bin" || e.Exec {
		t.Errorf("last entry %+v", e)
	}
}

// TestBigFileStatCache: a large file is re-verified from the cache without
// a read, and a change of one byte in its middle, with the size kept and
// the mtime forced back, is still seen.
func TestBigFileStatCache(t *testing.T) {
	dir := t.TempDir()
	b := content(2*ChunkSize+100, 7)
	p := writeBytes(t, dir, "weights.bin", b)
	waitOutRacyWindow()
	c := NewStatCache()
	var read atomic.Int64
	first := mustTree(t, dir, c, TreeOptions{Read: &read})
	if read.Load() != int64(len(b)) || c.Len() != 1 {
		t.Fatalf("first hash read %d bytes and cached %d files; want %d and 1", read.Load(), c.Len(), len(b))
	}
	read.Store(0)
	if again := mustTree(t, dir, c, TreeOptions{Read: &read}); again != first || read.Load() != 0 {
		t.Errorf("re-verify: digest %s (want %s), %d bytes read (want 0)", again, first, read.Load())
	}
	if d, err := FileWith(p, c, &read); err != nil || read.Load() != 0 {
		t.Errorf("File from the cache: %s, %v, %d bytes read", d, err, read.Load())
	}
	fi := stat(t, p)
	b[ChunkSize+17] ^= 0xff
	writeBytes(t, dir, "weights.bin", b)
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	changed := mustTree(t, dir, c, TreeOptions{})
	if changed == first {
		t.Error("a changed byte in the second chunk went unnoticed")
	}
	if d, err := File(p, nil); err != nil || d != chunkedByHand(b) {
		t.Errorf("File after the change = %s, %v; want %s", d, err, chunkedByHand(b))
	}
}

// TestBigFileChangingWhileRead hashes a file that is rewritten in place
// again and again: hashing fails only with the error that says so, the
// chunks shared between goroutines do not race (go test -race), and once
// the writer stops the digest is exact. (A digest of a mix of versions is
// not ruled out while a write is in progress: the kernel changes ctime when
// a write starts, so a read that falls wholly inside one long write sees no
// change of signature — as for files of one chunk.)
func TestBigFileChangingWhileRead(t *testing.T) {
	dir := t.TempDir()
	a, b := content(ChunkSize+ChunkSize/2, 1), content(ChunkSize+ChunkSize/2, 2)
	p := writeBytes(t, dir, "f", a)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			v := a
			if i%2 == 1 {
				v = b
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteAt(v, 0)
			f.Close()
		}
	}()
	for range 20 {
		if _, err := File(p, nil); err != nil && !strings.Contains(err.Error(), "changed each of the") {
			t.Errorf("unexpected error: %v", err)
			break
		}
	}
	close(stop)
	<-done
	final, _ := os.ReadFile(p)
	if d, err := File(p, nil); err != nil || d != chunkedByHand(final) {
		t.Errorf("after the writer stopped: %s, %v; want %s", d, err, chunkedByHand(final))
	}
}
