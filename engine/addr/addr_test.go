package addr

import "testing"

func TestParseRoundTrip(t *testing.T) {
	for _, s := range []string{`exec.a`, `exec.a["k"]`, `exec.a[3]`, `git_repo.verl`, `exec.a["with space"]`} {
		n, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if n.String() != s {
			t.Errorf("Parse(%q).String() = %q", s, n.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{`exec`, `exec.`, `.a`, `exec.a[`, `exec.a[]`, `exec.a.b`} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q): want error", s)
		}
	}
}

func TestFileName(t *testing.T) {
	cases := map[Node]string{
		{Kind: "exec", Name: "a"}:                          "exec.a",
		{Kind: "exec", Name: "a", Key: StringKey("x/y z")}: "exec.a[x%2Fy%20z]",
		{Kind: "exec", Name: "a", Key: IntKey(2)}:          "exec.a[2]",
	}
	for n, want := range cases {
		if got := n.FileName(); got != want {
			t.Errorf("%s.FileName() = %q, want %q", n, got, want)
		}
	}
}

func TestLessNumericKeys(t *testing.T) {
	a := Node{Kind: "exec", Name: "s", Key: IntKey(2)}
	b := Node{Kind: "exec", Name: "s", Key: IntKey(10)}
	if !a.Less(b) || b.Less(a) {
		t.Error("integer keys must order numerically")
	}
}
