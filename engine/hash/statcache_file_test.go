package hash

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleEntries() []pathEntry {
	m := map[string]cacheEntry{
		"/home/u/.kiln/store/ab/weights/model-00001.safetensors": {signature{1, 2, 3 << 30, 1700000000123456789, 1700000000987654321}, Bytes([]byte("1"))},
		"/home/u/.kiln/store/ab/weights/model-00002.safetensors": {signature{1, 3, 2 << 30, 1700000001000000000, 1700000001000000001}, Bytes([]byte("2"))},
		"/home/u/src/verl/setup.py":                              {signature{9, 77, 1234, -5, 0}, Bytes([]byte("3"))},
		"/p\nwith newline":                                       {signature{}, Digest{}},
	}
	var entries []pathEntry
	for p, e := range m {
		entries = append(entries, pathEntry{p, e})
	}
	slices.SortFunc(entries, func(a, b pathEntry) int { return strings.Compare(a.path, b.path) })
	return entries
}

var cmpEntries = cmp.AllowUnexported(pathEntry{}, cacheEntry{}, signature{})

func TestStatCacheEncodingRoundTrip(t *testing.T) {
	want := sampleEntries()
	got, ok := decodeStatCache(encodeStatCache(want))
	if !ok {
		t.Fatal("decoding a fresh encoding failed")
	}
	if diff := cmp.Diff(want, got, cmpEntries); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// withChecksum replaces the trailing checksum of a cache file so that only
// the defect under test is left.
func withChecksum(b []byte) []byte {
	body := b[:len(b)-trailerSize]
	return binary.LittleEndian.AppendUint32(append([]byte(nil), body...), crc32.Checksum(body, castagnoli))
}

func TestLoadStatCacheDefects(t *testing.T) {
	good := encodeStatCache(sampleEntries())
	dir := t.TempDir()
	defects := map[string][]byte{
		"empty":   {},
		"garbage": []byte("not a stat cache at all, just some text"),
		"wrong magic": withChecksum(func() []byte {
			b := append([]byte(nil), good...)
			copy(b, "KILNSTAT")
			return b
		}()),
		"wrong version": withChecksum(func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[len(statCacheMagic):], statCacheVersion+1)
			return b
		}()),
		"count too high": withChecksum(func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[len(statCacheMagic)+4:], 5)
			return b
		}()),
		"count too low": withChecksum(func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[len(statCacheMagic)+4:], 3)
			return b
		}()),
		"path bytes too high": withChecksum(func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint64(b[len(statCacheMagic)+8:], binary.LittleEndian.Uint64(b[len(statCacheMagic)+8:])+1)
			return b
		}()),
		"paths out of order": withChecksum(encodeStatCache([]pathEntry{{path: "/b"}, {path: "/a"}})),
		"duplicate path":     withChecksum(encodeStatCache([]pathEntry{{path: "/a"}, {path: "/a"}})),
		"huge count": withChecksum(func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[len(statCacheMagic)+4:], 1<<31)
			return b
		}()),
		"trailing bytes": withChecksum(append(append([]byte(nil), good[:len(good)-trailerSize]...), 0, 0, 0, 0, 0, 0, 0, 0)),
	}
	for n := range len(good) {
		defects["truncated to "+strconv.Itoa(n)] = good[:n]
		flipped := append([]byte(nil), good...)
		flipped[n] ^= 0x10
		defects["bit flipped at "+strconv.Itoa(n)] = flipped
	}
	for name, data := range defects {
		path := filepath.Join(dir, "cache")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if n := LoadStatCache(path).Len(); n != 0 {
			t.Errorf("%s: loaded %d entries, want an empty cache", name, n)
		}
	}
	for name, path := range map[string]string{"missing": filepath.Join(dir, "nope"), "folder": dir} {
		if n := LoadStatCache(path).Len(); n != 0 {
			t.Errorf("%s: loaded %d entries, want an empty cache", name, n)
		}
	}
	path := filepath.Join(dir, "good")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := LoadStatCache(path).Len(); n != len(sampleEntries()) {
		t.Errorf("the intact file loaded %d entries, want %d", n, len(sampleEntries()))
	}
}

func TestSaveNothingChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache")
	if err := NewStatCache().Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Save of an unchanged empty cache wrote %s (stat: %v)", path, err)
	}
	c := NewStatCache()
	c.store("/x", signature{ino: 1}, Bytes(nil), time.Now())
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Errorf("after Save the folder holds %v (%v); want only the cache, no temporary file", entries, err)
	}
}

func FuzzDecodeStatCache(f *testing.F) {
	f.Add(encodeStatCache(sampleEntries()))
	f.Add(encodeStatCache(nil))
	f.Add([]byte("kilnstat"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < trailerSize {
			return
		}
		// A valid checksum lets the fuzzer reach the parser behind it.
		entries, ok := decodeStatCache(withChecksum(data))
		if !ok {
			return
		}
		again, ok := decodeStatCache(encodeStatCache(entries))
		if !ok {
			t.Fatal("re-encoding a decoded cache does not decode")
		}
		if diff := cmp.Diff(entries, again, cmpEntries); diff != "" {
			t.Errorf("re-encoding changed the entries (-first +second):\n%s", diff)
		}
	})
}
