package hash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDigestText(t *testing.T) {
	d := Bytes([]byte("abc"))
	const want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if d.String() != want {
		t.Fatalf("Bytes(abc) = %s, want %s", d, want)
	}
	if d.Short() != want[:12] {
		t.Errorf("Short() = %s, want %s", d.Short(), want[:12])
	}
	if d.IsZero() || !(Digest{}).IsZero() {
		t.Errorf("IsZero wrong: %v for a sum, %v for the zero value", d.IsZero(), (Digest{}).IsZero())
	}
	for _, s := range []string{want, strings.ToUpper(want)} {
		got, err := ParseDigest(s)
		if err != nil || got != d {
			t.Errorf("ParseDigest(%q) = %s, %v; want %s", s, got, err, d)
		}
	}
}

func TestParseDigestErrors(t *testing.T) {
	good := Bytes(nil).String()
	for _, s := range []string{"", good[:63], good + "0", "sha256:" + good[:57], strings.Repeat("g", 64), " " + good[1:]} {
		if d, err := ParseDigest(s); err == nil {
			t.Errorf("ParseDigest(%q) = %s, want an error", s, d)
		}
	}
}

func TestLines(t *testing.T) {
	if got, want := Lines("a", "b c"), Bytes([]byte("a\nb c\n")); got != want {
		t.Errorf("Lines(a, b c) = %s, want %s", got, want)
	}
	if got, want := Lines(), Bytes(nil); got != want {
		t.Errorf("Lines() = %s, want %s", got, want)
	}
}

func TestFileSum(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := FileSum(p)
	if err != nil {
		t.Fatal(err)
	}
	// sha256sum of "abc".
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; d.String() != want {
		t.Errorf("FileSum = %s, want %s", d, want)
	}
	if _, err := FileSum(p + ".missing"); !os.IsNotExist(err) {
		t.Errorf("FileSum of a missing file: %v, want a not-exist error", err)
	}
}
