package proc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTail(t *testing.T) {
	tl := &Tail{Max: 32}
	for _, s := range []string{"first line, pushed out\n", "a\r\n", "\n  \n", "  b\n", "c unfinished"} {
		tl.Write([]byte(s))
	}
	if got := tl.String(); len(got) != 32 || !strings.HasSuffix(got, "c unfinished") {
		t.Errorf("String = %q, want the last 32 bytes", got)
	}
	if diff := cmp.Diff([]string{"  b", "c unfinished"}, tl.Lines(2)); diff != "" {
		t.Errorf("Lines(2) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "  b", "c unfinished"}, tl.Lines(10)); diff != "" {
		t.Errorf("Lines(10) (-want +got):\n%s", diff)
	}
}

// A line written in pieces is one line; blank lines do not count.
func TestTailKeepsLastLines(t *testing.T) {
	tl := &Tail{Max: 1024}
	for _, s := range []string{"one\n", "two\n\n", "thr", "ee\nfour"} {
		if _, err := tl.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff([]string{"two", "three", "four"}, tl.Lines(3)); d != "" {
		t.Errorf("tail (-want +got):\n%s", d)
	}
}

func TestFileTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for range 10000 {
		b.WriteString("filler line that makes the file larger than what is read\n")
	}
	b.WriteString("second to last\n\nlast\n")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FileTail(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"second to last", "last"}, got); diff != "" {
		t.Errorf("FileTail (-want +got):\n%s", diff)
	}
	if _, err := FileTail(p+".missing", 2); !os.IsNotExist(err) {
		t.Errorf("FileTail of a missing file: %v", err)
	}
}

func TestLastLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\n  b  \n\nc\n", 2, "b | c"},
		{"a\n", 5, "a"},
		{"\n \n", 3, "no output"},
	} {
		if got := LastLines(tc.in, tc.n); got != tc.want {
			t.Errorf("LastLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
