package hash

import "testing"

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
