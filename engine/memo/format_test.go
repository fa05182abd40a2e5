package memo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
)

func sampleMemo() *Memo {
	links := hash.Stamp{Dev: 1, Ino: 2, Size: 4096, Mtime: 1 << 60, Ctime: -5}
	return &Memo{
		Format: Format, Config: "cfg", Shared: "shared", Lineage: "lin", Serial: 1 << 40,
		Reads: []config.FileRead{{Path: "/p/params.txt", What: config.ReadContent, Seen: "abc"}, {Path: "/p/d", What: config.ReadFileset, Seen: "x", Pattern: "*.txt"}},
		Env:   []File{{Path: "PATH", Digest: "d1"}},
		Sources: []Source{{Path: "/p/pipeline.hcl", Digest: hash.Bytes([]byte("x")), Stamp: hash.Stamp{Dev: 20, Ino: 21, Size: 22, Mtime: 23, Ctime: 24}},
			{Path: "/p/kiln.lock.hcl"}},
		Links:   &links,
		Replans: "",
		Order:   []int32{1, 2, 0},
		Nodes: []Node{
			{Addr: "exec.a", Kind: "exec", Config: "own", Value: "v1", Exports: []Export{{Name: "path", Type: `"string"`, Value: `"/p/x"`}}, Link: "exec.a", Entry: "ab12-r1", Digest: "dig", Inputs: []File{{Path: "/p/in", Digest: "i1"}, {Path: "/p/requirements.txt", Digest: "k1"}},
				KeyFiles:   1,
				InputSeals: []hash.Stamp{{Dev: 3, Ino: 4, Size: 5, Mtime: 6, Ctime: 7}, {}},
				Globs:      []Glob{{Pattern: "data/*.txt", Matches: []string{"data/1.txt", "data/é 2.txt"}}},
				Outputs:    []string{"/p/out.bin"},
				Programs:   []Program{{Name: "python", Dir: "/p", Path: "/usr/bin:/bin", Line: "program python ..."}},
				Listing: &hash.Listing{Dev: 8, Ino: 9, Size: 10, Mtime: 11, Ctime: 12,
					Entries: []hash.Entry{{Path: "x", Kind: 'f'}, {Path: "l", Kind: 'l', Target: "../x"}}},
				Sealed: true, Seal: []hash.Stamp{{Dev: 13, Ino: 14, Size: 15, Mtime: 16, Ctime: 17}},
				Deps: []int32{1}, Resources: map[string]int64{"cpu": 2, "mem_mb": -1}, Rekeyable: true},
			{Addr: "service.b", Kind: "service", Full: "kind service probes the machine at every plan", Value: "v2"},
			{Addr: "exec.b", Kind: "exec", Link: "exec.b", Entry: "cd34-r2", Digest: "dig2", Sealed: true, Resumable: true},
		},
	}
}

// TestMemoRoundTrips: every field of the memo comes back as written.
func TestMemoRoundTrips(t *testing.T) {
	c := sampleMemo()
	b, ok := encode(c)
	if !ok {
		t.Fatal("encode refused the memo")
	}
	got, ok := decode(b)
	if !ok {
		t.Fatal("decode refused what encode wrote")
	}
	if d := cmp.Diff(c, got); d != "" {
		t.Errorf("round trip (-written +read):\n%s", d)
	}
	if len(b) != cap(b) {
		t.Errorf("encode sized %d bytes for a file of %d: the buffer is made once, at the size the file takes", cap(b), len(b))
	}
}

// TestMemoRefusesDamage: a truncated file, a changed byte, another
// format, a node index past the nodes, and a listing entry the format
// does not keep are no memo.
func TestMemoRefusesDamage(t *testing.T) {
	b, _ := encode(sampleMemo())
	for n := range len(b) {
		if _, ok := decode(b[:n]); ok {
			t.Fatalf("decoded the first %d of %d bytes", n, len(b))
		}
	}
	for i := range b {
		damaged := append([]byte(nil), b...)
		damaged[i] ^= 0x10
		if _, ok := decode(damaged); ok {
			t.Fatalf("decoded the file with byte %d changed", i)
		}
	}
	other := sampleMemo()
	other.Format = "kiln-memo-0"
	if b, ok := encode(other); !ok {
		t.Fatal("encode")
	} else if _, ok := decode(b); ok {
		t.Error("decoded a memo of another format")
	}
	past := sampleMemo()
	past.Nodes[0].Deps = []int32{3}
	if b, ok := encode(past); !ok {
		t.Fatal("encode")
	} else if _, ok := decode(b); ok {
		t.Error("decoded a memo whose node depends on a node it does not hold")
	}
	sized := sampleMemo()
	sized.Nodes[0].Listing.Entries[0].Size = 3
	if _, ok := encode(sized); ok {
		t.Error("encoded a listing entry with a size, which the format does not keep")
	}
}

// FuzzMemoDecode: no body (given its checksum, so that the parser
// is what is fuzzed) makes decoding panic, and what decodes encodes back
// to the same bytes.
func FuzzMemoDecode(f *testing.F) {
	b, _ := encode(sampleMemo())
	f.Add(b[:len(b)-4])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := hash.WithCRC(append([]byte(nil), body...))
		c, ok := decode(data)
		if !ok {
			return
		}
		again, ok := encode(c)
		if !ok || string(again) != string(data) {
			t.Fatalf("decoded %d bytes that encode back to %d other bytes", len(data), len(again))
		}
	})
}
