package addr

import (
	"strings"
	"testing"
)

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

// TestFileNameShortensLongAddresses: an address too long for a file name
// gets a name of MaxFileName bytes, the same every time, different for
// every address, and still starting as the address does.
func TestFileNameShortensLongAddresses(t *testing.T) {
	long := strings.Repeat("k", 300)
	path := strings.Repeat("/data/run", 40)
	nodes := []Node{
		{Kind: "exec", Name: "a", Key: StringKey(long)},
		{Kind: "exec", Name: "a", Key: StringKey(long + "x")},
		{Kind: "exec", Name: "a", Key: StringKey(path)},
		{Kind: "exec", Name: "a", Key: StringKey(path + "/")},
		{Kind: "exec", Name: strings.Repeat("n", 300)},
		{Kind: "exec", Name: "a", Key: StringKey(strings.Repeat("k", MaxFileName-len("exec.a[]")))},
	}
	seen := map[string]Node{}
	for _, n := range nodes {
		name := n.FileName()
		if len(name) > MaxFileName {
			t.Errorf("%.40s…: FileName is %d bytes, more than %d", n, len(name), MaxFileName)
		}
		if name != n.FileName() {
			t.Errorf("%.40s…: FileName differs between calls", n)
		}
		if strings.ContainsAny(name, "/\x00") || strings.HasPrefix(name, ".") {
			t.Errorf("%.40s…: FileName %q is not one path element", n, name)
		}
		if !strings.HasPrefix(name, n.Kind+"."+n.Name[:1]) {
			t.Errorf("%.40s…: FileName %q does not start as the address does", n, name)
		}
		if o, dup := seen[name]; dup {
			t.Errorf("%.40s… and %.40s… share the FileName %q", n, o, name)
		}
		seen[name] = n
	}
	// A name that fits is unchanged, escape and all.
	short := Node{Kind: "exec", Name: "a", Key: StringKey("~x")}
	if got := short.FileName(); got != "exec.a[%7Ex]" {
		t.Errorf("FileName = %q, want exec.a[%%7Ex]", got)
	}
	// The cut never splits an escape.
	for pad := range 4 {
		n := Node{Kind: "exec", Name: "a", Key: StringKey(strings.Repeat("k", pad) + strings.Repeat("/", 100))}
		name := n.FileName()
		head, _, _ := strings.Cut(name, "~")
		if i := strings.LastIndexByte(head, '%'); i > len(head)-3 {
			t.Errorf("pad %d: %q splits an escape", pad, name)
		}
	}
}
