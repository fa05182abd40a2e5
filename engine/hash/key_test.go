package hash

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKeyEachAddChangesSum(t *testing.T) {
	k := NewKey()
	seen := map[Digest]string{k.Sum(): "(empty)"}
	adds := [][2]string{
		{"kind", "exec"}, {"config", `{"command":"make"}`}, {"input", "a.txt 1234"},
		{"input", "a.txt 1234"}, {"upstream", ""}, {"env", "HOME=/root"},
	}
	for _, a := range adds {
		k.Add(a[0], a[1])
		s := k.Sum()
		if prev, dup := seen[s]; dup {
			t.Errorf("Add(%q, %q) left the sum as after %s", a[0], a[1], prev)
		}
		seen[s] = a[0] + " " + a[1]
	}
}

func TestKeySameLinesSameSum(t *testing.T) {
	build := func() *Key {
		k := NewKey()
		k.Add("kind", "exec")
		k.Addf("input", "%s %s", "a.txt", Bytes([]byte("x")))
		return k
	}
	a, b := build(), build()
	if a.Sum() != b.Sum() {
		t.Fatalf("same lines, different sums: %s, %s", a.Sum(), b.Sum())
	}
	var text []string
	for _, l := range a.Lines() {
		text = append(text, l.Text())
	}
	if got := Lines(text...); got != a.Sum() {
		t.Errorf("Sum() = %s, Lines of the lines' texts = %s", a.Sum(), got)
	}
	want := []string{"format " + FormatVersion, "kind exec", "input a.txt " + Bytes([]byte("x")).String()}
	if diff := cmp.Diff(want, text); diff != "" {
		t.Errorf("Lines() (-want +got):\n%s", diff)
	}
	var zero Key
	zero.Add("kind", "exec")
	zero.Addf("input", "%s %s", "a.txt", Bytes([]byte("x")))
	if zero.Sum() != a.Sum() {
		t.Errorf("zero Key sums to %s, NewKey to %s", zero.Sum(), a.Sum())
	}
}

func TestKeyLinesIsACopy(t *testing.T) {
	k := NewKey()
	k.Add("kind", "exec")
	before := k.Sum()
	k.Lines()[1] = Line{Label: "kind", Value: "fetch"}
	if k.Sum() != before {
		t.Error("changing the slice returned by Lines changed the key")
	}
}

func TestKeyQuoting(t *testing.T) {
	cases := []struct {
		label, value, want string
	}{
		{"cmd", "make all", "cmd make all"},
		{"cmd", "a\nb", `cmd "a\nb"`},
		{"cmd", "a\r", `cmd "a\r"`},
		{"cmd", "tab\there", `cmd "tab\there"`},
		{"cmd", "bell\a", `cmd "bell\a"`},
		{"cmd", `"quoted"`, `cmd "\"quoted\""`},
		{"cmd", "bad \xff utf8", `cmd "bad \xff utf8"`},
		{"cmd", "", "cmd "},
		{"cmd", "ünïcode ok", "cmd ünïcode ok"},
		{"two words", "v", `"two words" v`},
	}
	for _, c := range cases {
		k := NewKey()
		k.Add(c.label, c.value)
		got := k.Lines()[1].Text()
		if got != c.want {
			t.Errorf("Add(%q, %q) wrote %q, want %q", c.label, c.value, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("Add(%q, %q) wrote more than one physical line: %q", c.label, c.value, got)
		}
	}
}

func TestKeyValuesCannotForgeLines(t *testing.T) {
	pairs := []struct{ a, b func(*Key) }{
		{
			func(k *Key) { k.Add("a", "1\nb 2") },
			func(k *Key) { k.Add("a", "1"); k.Add("b", "2") },
		},
		{
			func(k *Key) { k.Add("a", `"x\ny"`) },
			func(k *Key) { k.Add("a", "x\ny") },
		},
		{
			func(k *Key) { k.Add("a b", "c") },
			func(k *Key) { k.Add("a", "b c") },
		},
	}
	for i, p := range pairs {
		ka, kb := NewKey(), NewKey()
		p.a(ka)
		p.b(kb)
		if ka.Sum() == kb.Sum() {
			t.Errorf("pair %d: %q and %q give the same sum", i, ka.Lines(), kb.Lines())
		}
	}
}

func TestLineText(t *testing.T) {
	d := Bytes([]byte("x")).String()
	cases := []struct {
		line       Line
		text, show string
	}{
		{Line{Label: "input", Subject: "my data/50%.csv", Value: d}, "input my%20data/50%25.csv " + d, ""},
		{Line{Label: "attr", Subject: "command", Value: `"make all"`}, `attr command "make all"`, ""},
		{Line{Label: "attr", Subject: "command", Value: "a\nb"}, `attr "command a\nb"`, ""},
		{Line{Label: "fact", Subject: "toolchain.setup /opt/set env.sh", Value: d}, "fact toolchain.setup /opt/set env.sh " + d, ""},
		{Line{Label: "input", Subject: "bad\xff name", Value: d}, `input "bad\xff%20name ` + d + `"`, ""},
		{Line{Label: "attr", Subject: "env", Value: "{\"A\":\"\t\"}"}, `attr "env {\"A\":\"\t\"}"`, ""},
		{Line{Label: "two words", Value: "v"}, `"two words" v`, ""},
		{Line{Label: "dep", Subject: "1", Value: d, Note: "exec.a"}, "dep 1 " + d, "dep 1 " + d + " # exec.a"},
		{Line{Label: "dep", Subject: "2", Value: d, Note: "exec.b[\"k\nl\"]"}, "dep 2 " + d, "dep 2 " + d + ` # "exec.b[\"k\nl\"]"`},
	}
	for _, c := range cases {
		if got := c.line.Text(); got != c.text {
			t.Errorf("%+v: Text() = %q, want %q", c.line, got, c.text)
		}
		show := c.show
		if show == "" {
			show = c.text
		}
		if got := c.line.Show(); got != show {
			t.Errorf("%+v: Show() = %q, want %q", c.line, got, show)
		}
		if got, want := LinesSum([]Line{c.line}), Lines(c.text); got != want {
			t.Errorf("%+v: LinesSum = %s, Lines of its text = %s", c.line, got, want)
		}
	}
	var k Key
	k.AddLine(cases[0].line)
	if want := Lines("format "+FormatVersion, cases[0].text); k.Sum() != want {
		t.Errorf("a key of one typed line sums to %s, the lines of its text to %s", k.Sum(), want)
	}
	if a := (Line{Label: "dep", Subject: "1", Note: "exec.a"}).About(); a != "exec.a" {
		t.Errorf("a dep line is about %q, want its upstream exec.a", a)
	}
}
