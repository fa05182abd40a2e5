package hash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// ChunkSize is the size of the pieces a large file is digested in: a
// regular file of more than ChunkSize bytes has a chunked digest (see the
// package doc), whose chunks are hashed in parallel.
const ChunkSize = 16 << 20

// chunkRead is how much of a chunk one read call asks for.
const chunkRead = 1 << 20

// chunkHeader is the first line of a chunked digest's hashed text.
func chunkHeader(size int64) []byte {
	b := append([]byte("chunks "), strconv.FormatInt(size, 10)...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, ChunkSize, 10)
	return append(b, '\n')
}

// chunks is the number of chunks of a file of size bytes: a file of at
// most ChunkSize bytes (an empty one too) is one chunk.
func chunks(size int64) int { return max(1, int((size+ChunkSize-1)/ChunkSize)) }

// combineChunks is the digest of a file of size bytes from the SHA-256 of
// each of its chunks: for a file of one chunk, the SHA-256 of its content.
func combineChunks(size int64, sums []Digest) Digest {
	if size <= ChunkSize {
		return sums[0]
	}
	h := sha256.New()
	h.Write(chunkHeader(size))
	line := make([]byte, 0, 2*len(Digest{})+1)
	for _, s := range sums {
		line = append(hex.AppendEncode(line[:0], s[:]), '\n')
		h.Write(line)
	}
	var d Digest
	h.Sum(d[:0])
	return d
}

// Content computes kiln's digest of a file's content as it streams by,
// for content that does not come from a file on disk (a download): the
// same digest as File gives the file holding those bytes. Write the size
// given to NewContent, no more, no less; Sum fails otherwise.
type Content struct {
	size, n int64
	whole   hash.Hash // the file, or the current chunk
	sums    []Digest
}

// NewContent returns a Content for size bytes.
func NewContent(size int64) *Content { return newContent(sha256.New(), size) }

// newContent is NewContent with a SHA-256 state to reuse.
func newContent(sha hash.Hash, size int64) *Content {
	sha.Reset()
	return &Content{size: size, whole: sha}
}

// Write adds p. It never fails.
func (c *Content) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		if c.size <= ChunkSize {
			c.whole.Write(p)
			c.n += int64(len(p))
			break
		}
		room := ChunkSize - c.n%ChunkSize
		k := int64(len(p))
		if k > room {
			k = room
		}
		c.whole.Write(p[:k])
		c.n += k
		p = p[k:]
		if c.n%ChunkSize == 0 || c.n == c.size {
			var d Digest
			c.whole.Sum(d[:0])
			c.sums = append(c.sums, d)
			c.whole.Reset()
		}
	}
	return written, nil
}

// Sum returns the digest of what was written, or an error when it was not
// exactly the size given to NewContent.
func (c *Content) Sum() (Digest, error) {
	if c.n != c.size {
		return Digest{}, fmt.Errorf("content digest: %d bytes written, %d expected", c.n, c.size)
	}
	var d Digest
	if c.size <= ChunkSize {
		c.whole.Sum(d[:0])
		return d, nil
	}
	return combineChunks(c.size, c.sums), nil
}

// ChunkedDigest is the digest of a file of size bytes whose chunks have the
// SHA-256 sums given (one per chunk, see the package doc): what File gives
// that file. It fails when the number of sums does not fit the size.
func ChunkedDigest(size int64, sums []Digest) (Digest, error) {
	if size < 0 || len(sums) != chunks(size) {
		return Digest{}, fmt.Errorf("a file of %d bytes has %d chunks of %d bytes, not %d", size, chunks(max(size, 0)), ChunkSize, len(sums))
	}
	return combineChunks(size, sums), nil
}

// FileChunks returns the size of the regular file at path and the SHA-256
// of each of its chunks, hashed in parallel; ChunkedDigest of them is the
// file's digest. It reads the file, whatever a cache says.
func FileChunks(path string) (int64, []Digest, error) {
	f := &bigFile{path: path, abs: path, follow: true}
	for range readAttempts {
		if err := readChunks([]*bigFile{f}, 0, nil); err != nil {
			return 0, nil, err
		}
		after, err := f.f.Stat()
		f.f.Close()
		if err != nil {
			return 0, nil, fmt.Errorf("hash file: %w", err)
		}
		if !f.changed.Load() && sameStat(f.before, after) {
			return f.before.Size(), f.sums, nil
		}
	}
	return 0, nil, fmt.Errorf("hash %s: the file changed each of the %d times it was read; stop whatever is writing to it and retry", path, readAttempts)
}

// ContentBytes is the digest File gives a file holding b.
func ContentBytes(b []byte) Digest {
	c := NewContent(int64(len(b)))
	c.Write(b)
	d, _ := c.Sum()
	return d
}

// bigFile is one large file being hashed chunk by chunk.
type bigFile struct {
	path, abs string
	follow    bool
	start     time.Time
	f         *os.File
	fd        int // f's descriptor, for read-ahead hints
	before    fs.FileInfo
	sums      []Digest
	changed   atomic.Bool // a read came short: the file shrank
	failed    atomic.Bool
	err       error // the first read error; set before failed
	errOnce   sync.Once
}

// chunkJob is one chunk of one big file.
type chunkJob struct {
	file  *bigFile
	index int
}

// chunkBuffers hold one read buffer per hashing goroutine.
var chunkBuffers = sync.Pool{New: func() any { b := make([]byte, chunkRead); return &b }}

// hashBig digests large files, all of their chunks shared out to workers
// goroutines, and stores each result in the cache. A file that changes while
// it is read is read again, up to readAttempts times. It returns each file's
// digest and size, in the order given.
func hashBig(files []*bigFile, c *StatCache, workers int, read *atomic.Int64) ([]Digest, []int64, error) {
	digests := make([]Digest, len(files))
	sizes := make([]int64, len(files))
	todo := make([]int, len(files))
	for i := range todo {
		todo[i] = i
	}
	for attempt := 0; len(todo) > 0; attempt++ {
		if attempt == readAttempts {
			f := files[todo[0]]
			return nil, nil, fmt.Errorf("hash %s: the file changed each of the %d times it was read; stop whatever is writing to it and retry", f.path, readAttempts)
		}
		var batch []*bigFile
		for _, i := range todo {
			batch = append(batch, files[i])
		}
		if err := readChunks(batch, workers, read); err != nil {
			return nil, nil, err
		}
		var again []int
		for _, i := range todo {
			f := files[i]
			after, err := f.f.Stat()
			f.f.Close()
			if err != nil {
				return nil, nil, fmt.Errorf("hash file: %w", err)
			}
			if f.changed.Load() || !sameStat(f.before, after) {
				again = append(again, i)
				continue
			}
			size := f.before.Size()
			digests[i], sizes[i] = combineChunks(size, f.sums), size
			if sig, ok := signatureOf(f.before); ok && c != nil {
				c.store(f.abs, sig, digests[i], f.start)
			}
		}
		todo = again
	}
	return digests, sizes, nil
}

// readChunks opens the files and hashes every chunk of each, by workers
// goroutines. Each file is left open, with its stat result before reading
// in before, for the caller to check and close.
func readChunks(files []*bigFile, workers int, read *atomic.Int64) error {
	var jobs []chunkJob
	for i, f := range files {
		if err := f.open(); err != nil {
			for _, g := range files[:i] {
				g.f.Close()
			}
			return err
		}
		f.sums = make([]Digest, chunks(f.before.Size()))
		f.changed.Store(false)
		for k := range f.sums {
			jobs = append(jobs, chunkJob{f, k})
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			h := fileHashers.Get().(*fileHasher)
			defer fileHashers.Put(h)
			buf := chunkBuffers.Get().(*[]byte)
			defer chunkBuffers.Put(buf)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				j := jobs[i]
				if j.file.failed.Load() {
					continue
				}
				n, err := j.file.hashChunk(j.index, h.sha, *buf)
				if read != nil {
					read.Add(n)
				}
				if err != nil {
					j.file.fail(err)
				}
			}
		})
	}
	wg.Wait()
	for _, f := range files {
		if f.failed.Load() {
			for _, g := range files {
				g.f.Close()
			}
			return f.err
		}
	}
	return nil
}

// open opens the file and takes its stat result before reading.
func (f *bigFile) open() error {
	flags := os.O_RDONLY | syscall.O_NONBLOCK // a fifo swapped in must not block the open
	if !f.follow {
		flags |= syscall.O_NOFOLLOW
	}
	f.start = time.Now()
	fh, err := os.OpenFile(f.path, flags, 0)
	if err != nil {
		return fmt.Errorf("hash file: %w", err)
	}
	before, err := fh.Stat()
	if err != nil {
		fh.Close()
		return fmt.Errorf("hash file: %w", err)
	}
	if !before.Mode().IsRegular() {
		fh.Close()
		return notRegularError(f.path, before.Mode())
	}
	f.f, f.fd, f.before = fh, int(fh.Fd()), before
	return nil
}

func (f *bigFile) fail(err error) {
	f.errOnce.Do(func() { f.err = err; f.failed.Store(true) })
}

// hashChunk reads chunk k with sha and buf, and returns the bytes read. The
// kernel is asked to read the next chunk ahead meanwhile. A file found
// shorter than it was when opened is marked changed.
func (f *bigFile) hashChunk(k int, sha hash.Hash, buf []byte) (int64, error) {
	size := f.before.Size()
	off := int64(k) * ChunkSize
	end := min(off+ChunkSize, size)
	readAhead(f.fd, end, min(end+ChunkSize, size)-end)
	sha.Reset()
	var n int64
	for off < end {
		want := min(int64(len(buf)), end-off)
		got, err := f.f.ReadAt(buf[:want], off)
		sha.Write(buf[:got])
		n += int64(got)
		off += int64(got)
		if err == io.EOF && off < end {
			f.changed.Store(true)
			return n, nil
		}
		if err != nil && off < end {
			return n, fmt.Errorf("hash file: %w", err)
		}
	}
	sha.Sum(f.sums[k][:0])
	return n, nil
}
