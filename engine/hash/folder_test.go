package hash

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestReplaceFolder(t *testing.T) {
	for _, tc := range []struct{ s, dir, want string }{
		{"/a/pipe/x", "/a/pipe", "$D/x"},
		{"/a/pipe", "/a/pipe", "$D"},
		{`cat "/a/pipe" /a/pipe:x`, "/a/pipe", `cat "$D" $D:x`},
		{"/a/pipe-data /a/pipe2 /a/pipe.d", "/a/pipe", "/a/pipe-data /a/pipe2 /a/pipe.d"},
		{"/a/pipe/x /a/pipe-data /a/pipe/y", "/a/pipe/", "$D/x /a/pipe-data $D/y"},
		{"/a/pipe", "", "/a/pipe"},
		{"/a/pipe", "/", "/a/pipe"},
	} {
		if got := ReplaceFolder(tc.s, tc.dir, "$D"); got != tc.want {
			t.Errorf("ReplaceFolder(%q, %q) = %q, want %q", tc.s, tc.dir, got, tc.want)
		}
	}
}

// Relocatable writes the state folder before the pipeline folder that
// holds it, and leaves sibling folders alone.
func TestRelocatable(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"/a/pipe/.kiln/store/x", "$KILN_STATE/store/x"},
		{"/a/pipe/src /a/pipe", "$KILN_ROOT/src $KILN_ROOT"},
		{"-e /a/pipe-data/lib", "-e /a/pipe-data/lib"},
		{"/elsewhere/x", "/elsewhere/x"},
	} {
		if got := Relocatable(tc.s, "/a/pipe/.kiln", "/a/pipe"); got != tc.want {
			t.Errorf("Relocatable(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// replaceEach is Folders.Replace done the slow way: each folder replaced
// in turn, longest first.
func replaceEach(s string, dirs, tokens []string) string {
	order := make([]int, len(dirs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return len(strings.TrimRight(dirs[b], "/")) - len(strings.TrimRight(dirs[a], "/"))
	})
	for _, i := range order {
		s = ReplaceFolder(s, dirs[i], tokens[i])
	}
	return s
}

// TestFoldersReplaceAsOneByOne: replacing many folders in one pass gives
// what replacing them one by one gives, for the stable paths of results
// (one parent, names that extend one another, keys with brackets, quotes
// and escapes, repeated folders) and for folders without a common parent,
// in strings made of those paths, parts of them and what may follow them.
func TestFoldersReplaceAsOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"exec.a", "exec.ab", "exec.a-b", "exec.a.b", `exec.a["k"]`, `exec.a["k2"]`, "exec.a[0]", "exec.a[10]",
		`exec.m["s%2F1"]`, "exec.long~0a1b2c", "fetch.w", "exec.a_b"}
	frags := []string{"/", " ", "-", ".", "x", `"`, "[", ":", "/x/y", "\n", "", "/p/.kiln/out", "/p/.kiln/", "/p/.kiln/out/exec"}
	for round := 0; round < 3000; round++ {
		var dirs, tokens []string
		for n := 1 + r.IntN(8); len(dirs) < n; {
			d := "/p/.kiln/out/" + names[r.IntN(len(names))]
			switch r.IntN(20) {
			case 0:
				d = "/q/elsewhere/" + names[r.IntN(len(names))] // no common parent
			case 1:
				d += "/" // a trailing slash is not part of the folder
			}
			dirs, tokens = append(dirs, d), append(tokens, fmt.Sprintf("<%d>", len(dirs)))
		}
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			if r.IntN(2) == 0 {
				d := dirs[r.IntN(len(dirs))]
				b.WriteString(d[:len(d)-r.IntN(3)])
			} else {
				b.WriteString(frags[r.IntN(len(frags))])
			}
		}
		s := b.String()
		want := replaceEach(s, dirs, tokens)
		if got := NewFolders(dirs, tokens).Replace(s); got != want {
			t.Fatalf("folders %q in %q:\n got %q\nwant %q", dirs, s, got, want)
		}
	}
}

// TestFoldersReadTheStringOnce: ten thousand results named in one string
// of a megabyte are replaced in one pass (one by one, that is ten
// thousand readings of the megabyte).
func TestFoldersReadTheStringOnce(t *testing.T) {
	var dirs, tokens []string
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		d := fmt.Sprintf("/p/.kiln/out/exec.call[\"s%d\"]", i)
		dirs, tokens = append(dirs, d), append(tokens, fmt.Sprintf("<%d>", i))
		b.WriteString(d + "/x ")
	}
	f := NewFolders(dirs, tokens)
	if f.parent != "/p/.kiln/out/" {
		t.Fatalf("the results' folders are not replaced in one pass (parent %q)", f.parent)
	}
	got := f.Replace(b.String())
	if !strings.HasPrefix(got, "<0>/x <1>/x ") || !strings.HasSuffix(got, "<9999>/x ") || strings.Contains(got, "/p/") {
		t.Errorf("replaced %.60q ... %.60q", got, got[len(got)-60:])
	}
}
