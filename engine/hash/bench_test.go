package hash

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkTreeCached verifies an unchanged 10,000-file tree against a warm
// stat cache: one lstat per file, no reads.
func BenchmarkTreeCached(b *testing.B) {
	dir := build(b, manyFiles(10_000)...)
	waitOutRacyWindow()
	cache := NewStatCache()
	want := mustTree(b, dir, cache, TreeOptions{})
	if cache.Len() != 10_000 {
		b.Fatalf("warm cache holds %d entries, want 10000", cache.Len())
	}
	misses := cache.misses.Load()
	hits := cache.hits.Load()
	b.ResetTimer()
	for b.Loop() {
		if got := mustTree(b, dir, cache, TreeOptions{}); got != want {
			b.Fatalf("cached digest %s, want %s", got, want)
		}
	}
	b.StopTimer()
	if m := cache.misses.Load() - misses; m != 0 {
		b.Fatalf("%d stat cache misses on an unchanged tree", m)
	}
	b.ReportMetric(float64(cache.hits.Load()-hits)/float64(b.N), "hits/op")
}

// BenchmarkTreeUncached hashes the same tree reading every file.
func BenchmarkTreeUncached(b *testing.B) {
	dir := build(b, manyFiles(10_000)...)
	for b.Loop() {
		mustTree(b, dir, nil, TreeOptions{})
	}
}

// BenchmarkLoadStatCache loads a saved cache of 100,000 entries.
func BenchmarkLoadStatCache(b *testing.B) {
	c := NewStatCache()
	now := time.Now()
	for i := range 100_000 {
		p := fmt.Sprintf("/home/user/pipeline/.kiln/store/%064x/data/shard-%03d/part-%06d.parquet", i/1000, i/100%1000, i)
		c.store(p, signature{66306, uint64(1e6 + i), int64(i) << 10, 1.7e18 + int64(i), 1.7e18 + int64(i)}, Bytes([]byte(p)), now)
	}
	path := filepath.Join(b.TempDir(), "statcache")
	if err := c.Save(path); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if n := LoadStatCache(path).Len(); n != 100_000 {
			b.Fatalf("loaded %d entries", n)
		}
	}
}
