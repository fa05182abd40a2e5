package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
)

func sampleCert() *quickCert {
	links := hash.Stamp{Dev: 1, Ino: 2, Size: 4096, Mtime: 1 << 60, Ctime: -5}
	return &quickCert{
		Format: quickFormat, Config: "cfg", Lineage: "lin", Serial: 1 << 40,
		Reads: []config.FileRead{{Path: "/p/params.txt", What: config.ReadContent, Seen: "abc"}, {Path: "/p/d", What: config.ReadFileset, Seen: "x", Pattern: "*.txt"}},
		Env:   []quickFile{{Path: "PATH", Digest: "d1"}},
		Sources: []quickSource{{Path: "/p/pipeline.hcl", Digest: hash.Bytes([]byte("x")), Stamp: hash.Stamp{Dev: 20, Ino: 21, Size: 22, Mtime: 23, Ctime: 24}},
			{Path: "/p/kiln.lock.hcl"}},
		Links: &links,
		Nodes: []quickNode{
			{Link: "exec.a", Entry: "ab12-r1", Digest: "dig", Inputs: []quickFile{{Path: "/p/in", Digest: "i1"}, {Path: "/p/requirements.txt", Digest: "k1"}},
				KeyFiles:   1,
				InputSeals: []hash.Stamp{{Dev: 3, Ino: 4, Size: 5, Mtime: 6, Ctime: 7}, {}},
				Globs:      []quickGlob{{Pattern: "data/*.txt", Matches: []string{"data/1.txt", "data/é 2.txt"}}},
				Outputs:    []string{"/p/out.bin"},
				Programs:   []quickProgram{{Name: "python", Dir: "/p", Path: "/usr/bin:/bin", Line: "program python ..."}},
				Listing: &hash.Listing{Dev: 8, Ino: 9, Size: 10, Mtime: 11, Ctime: 12,
					Entries: []hash.Entry{{Path: "x", Kind: 'f'}, {Path: "l", Kind: 'l', Target: "../x"}}},
				Sealed: true, Seal: []hash.Stamp{{Dev: 13, Ino: 14, Size: 15, Mtime: 16, Ctime: 17}}},
			{Link: "exec.b", Entry: "cd34-r2", Digest: "dig2", Sealed: true},
		},
	}
}

// TestQuickCertRoundTrips: every field of the certificate comes back as
// written.
func TestQuickCertRoundTrips(t *testing.T) {
	c := sampleCert()
	b, ok := encodeQuickCert(c)
	if !ok {
		t.Fatal("encodeQuickCert refused the certificate")
	}
	got, ok := decodeQuickCert(b)
	if !ok {
		t.Fatal("decodeQuickCert refused what encodeQuickCert wrote")
	}
	if d := cmp.Diff(c, got); d != "" {
		t.Errorf("round trip (-written +read):\n%s", d)
	}
}

// TestQuickCertRefusesDamage: a truncated file, a changed byte, another
// format, and a listing entry the format does not keep are no certificate.
func TestQuickCertRefusesDamage(t *testing.T) {
	b, _ := encodeQuickCert(sampleCert())
	for n := range len(b) {
		if _, ok := decodeQuickCert(b[:n]); ok {
			t.Fatalf("decoded the first %d of %d bytes", n, len(b))
		}
	}
	for i := range b {
		damaged := append([]byte(nil), b...)
		damaged[i] ^= 0x10
		if _, ok := decodeQuickCert(damaged); ok {
			t.Fatalf("decoded the file with byte %d changed", i)
		}
	}
	other := sampleCert()
	other.Format = "kiln-noop-0"
	if b, ok := encodeQuickCert(other); !ok {
		t.Fatal("encode")
	} else if _, ok := decodeQuickCert(b); ok {
		t.Error("decoded a certificate of another format")
	}
	sized := sampleCert()
	sized.Nodes[0].Listing.Entries[0].Size = 3
	if _, ok := encodeQuickCert(sized); ok {
		t.Error("encoded a listing entry with a size, which the format does not keep")
	}
}

// FuzzQuickCertDecode: no body (given its checksum, so that the parser
// is what is fuzzed) makes decoding panic, and what decodes encodes back
// to the same bytes.
func FuzzQuickCertDecode(f *testing.F) {
	b, _ := encodeQuickCert(sampleCert())
	f.Add(b[:len(b)-4])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := hash.WithCRC(append([]byte(nil), body...))
		c, ok := decodeQuickCert(data)
		if !ok {
			return
		}
		again, ok := encodeQuickCert(c)
		if !ok || string(again) != string(data) {
			t.Fatalf("decoded %d bytes that encode back to %d other bytes", len(data), len(again))
		}
	})
}
