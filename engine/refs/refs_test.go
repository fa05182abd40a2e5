package refs

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var key = strings.Repeat("0123456789abcdef", 4)

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScanFindsKeysAndNamesInFilesAndLinks(t *testing.T) {
	dir := t.TempDir()
	other := strings.Repeat("f", KeyLen)
	write(t, filepath.Join(dir, "bin/activate"), []byte("VIRTUAL_ENV=/kiln/out/"+key+"\n"))
	write(t, filepath.Join(dir, "lib/site.pth"), []byte("/home/u/p/.kiln/out/git.verl[main]/src\n"))
	if err := os.Symlink("../../store/ff/"+other+"-1/bin/python", filepath.Join(dir, "bin/python")); err != nil {
		t.Fatal(err)
	}
	f := NewFound()
	if err := Scan(f, dir, filepath.Join(dir, "missing")); err != nil {
		t.Fatal(err)
	}
	if !f.Keys[key] || !f.Keys[other] || len(f.Keys) != 2 {
		t.Errorf("keys = %v, want %s and %s", f.Keys, key, other)
	}
	// /kiln/out/KEY is a name after "out/" too.
	if !f.Names["git.verl[main]"] || len(f.Names) != 2 {
		t.Errorf("names = %v, want git.verl[main] and the key", f.Names)
	}
}

func TestScanFindsAMarkAcrossReads(t *testing.T) {
	for _, at := range []int{chunk - 10, chunk - 3, chunk + chunk - carry - 1} {
		data := bytes.Repeat([]byte{'x'}, 3*chunk)
		copy(data[at:], "/kiln/out/"+key)
		name := filepath.Join(t.TempDir(), "big")
		write(t, name, data)
		f := NewFound()
		if err := Scan(f, name); err != nil {
			t.Fatal(err)
		}
		if !f.Keys[key] {
			t.Errorf("a key at byte %d across a read's end was not found", at)
		}
	}
}

func TestHexWindows(t *testing.T) {
	cases := map[string][]string{
		key:                       {key},
		"x" + key + "-1":          {key},
		key[:KeyLen-1] + "g":      nil,
		key + "a":                 {key, key[1:] + "a"},
		"ABCDEF" + key[6:]:        nil, // upper case is not a key
		key[:10] + "/" + key[10:]: nil,
	}
	for in, want := range cases {
		f := NewFound()
		String(f, in)
		if len(f.Keys) != len(want) {
			t.Errorf("%q: keys %v, want %v", in, f.Keys, want)
		}
		for _, k := range want {
			if !f.Keys[k] {
				t.Errorf("%q: %s not found", in, k)
			}
		}
	}
}

func TestRandomBytesNameNothing(t *testing.T) {
	data := make([]byte, 4<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	f := NewFound()
	marks(f, data)
	if f.size() != 0 {
		t.Errorf("random bytes gave marks: %v %v", f.Keys, f.Names)
	}
}

func TestTooManyMarksIsUnknown(t *testing.T) {
	var b strings.Builder
	for i := range MaxCandidates + 1 {
		b.WriteString("out/n" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "_" + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + "\n")
	}
	name := filepath.Join(t.TempDir(), "manifest")
	write(t, name, []byte(b.String()))
	if err := Scan(NewFound(), name); !errors.Is(err, ErrUnknown) {
		t.Errorf("Scan of %d marks = %v, want ErrUnknown", MaxCandidates+1, err)
	}
}

func TestTooLargeIsUnknownUnread(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "small"), []byte("/kiln/out/"+key))
	big := filepath.Join(dir, "weights.bin")
	write(t, big, nil)
	if err := os.Truncate(big, Limit); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	if err := Scan(NewFound(), dir); !errors.Is(err, ErrUnknown) {
		t.Errorf("Scan of more than Limit bytes = %v, want ErrUnknown", err)
	}
}
