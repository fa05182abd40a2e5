package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

const sha1 = "d62da4950573d7a4b7ef2362337952e7ab59e78d"

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name string
		hcl  string
		want config
	}{
		{"commit", `
url = "https://github.com/volcengine/verl.git"
commit = "D62DA4950573D7A4B7EF2362337952E7AB59E78D"`,
			config{URL: "https://github.com/volcengine/verl.git", Commit: sha1}},
		{"ref and options", `
url = "git@github.com:volcengine/verl.git"
ref = "v0.6.1"
patches = ["p/a.patch", "/abs/b.patch"]
submodules = true
lfs = true`,
			config{URL: "git@github.com:volcengine/verl.git", Ref: "v0.6.1", Patches: []string{"p/a.patch", "/abs/b.patch"}, Submodules: true, LFS: true}},
		{"local path", `
url = "/srv/git/verl"
ref = "refs/heads/main"`,
			config{URL: "/srv/git/verl", Ref: "refs/heads/main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeConfig(decode(t, tt.hcl))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
		})
	}
}

// TestRefusedConfig checks that a bad configuration fails the build with a
// message naming the problem, before git runs or the mirror is made.
func TestRefusedConfig(t *testing.T) {
	tests := []struct {
		name string
		hcl  string
		want []string // substrings of the error
	}{
		{"short commit", `
url = "https://example.com/r.git"
commit = "d62da49"`, []string{`"d62da49"`, "full 40-hex SHA", "git rev-parse d62da49", "ref"}},
		{"not hex", `
url = "https://example.com/r.git"
commit = "v0.6.1"`, []string{`"v0.6.1"`, "full 40-hex SHA"}},
		{"dash ref", `
url = "https://example.com/r.git"
ref = "--upload-pack=touch /tmp/x"`, []string{"ref", "begins with '-'"}},
		{"upload-pack url", `
url = "--upload-pack=touch /tmp/x"
commit = "` + sha1 + `"`, []string{"refused", "begins with '-'"}},
		{"embedded upload-pack", `
url = "file:///tmp/r.git --upload-pack=touch /tmp/x"
commit = "` + sha1 + `"`, []string{"refused", "--upload-pack"}},
		{"embedded -c", `
url = "/tmp/r.git -c core.sshCommand=x"
commit = "` + sha1 + `"`, []string{"refused", "-c"}},
		{"ext transport", `
url = "ext::sh -c touch% /tmp/x"
commit = "` + sha1 + `"`, []string{"refused", "ext::"}},
		{"ssh host option", `
url = "ssh://-oProxyCommand=x/r.git"
commit = "` + sha1 + `"`, []string{"refused", "-oProxyCommand=x"}},
		{"both", `
url = "https://example.com/r.git"
commit = "` + sha1 + `"
ref = "main"`, []string{"either commit or ref, not both"}},
		{"neither", `
url = "https://example.com/r.git"`, []string{"one of commit", "or ref", "is required"}},
		{"missing patch", `
url = "https://example.com/r.git"
commit = "` + sha1 + `"
patches = ["no-such.patch"]`, []string{"patch no-such.patch", "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := t.TempDir()
			b := testBuild(t, decode(t, tt.hcl), state, t.TempDir())
			_, err := testRepo().Build(context.Background(), b)
			if err == nil {
				t.Fatal("Build succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, dir := range []string{b.Dir, state} {
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("%s is not empty after a refused config: %v", dir, entries)
				}
			}
		})
	}
}

func TestExportsAndKeyFiles(t *testing.T) {
	r := testRepo()
	pinned := &kind.Node{Config: decode(t, `
url = "https://example.com/r.git"
commit = "`+sha1+`"
patches = ["a.patch", "b.patch"]`)}
	got := r.Exports(pinned)
	if !got["commit"].RawEquals(cty.StringVal(sha1)) || !got["url"].RawEquals(cty.StringVal("https://example.com/r.git")) {
		t.Errorf("Exports of a pinned node = %#v", got)
	}
	if d := cmp.Diff([]string{"a.patch", "b.patch"}, r.KeyFiles(pinned)); d != "" {
		t.Errorf("KeyFiles (-want +got):\n%s", d)
	}

	byRef := &kind.Node{Config: decode(t, `
url = "https://example.com/r.git"
ref = "main"`)}
	if c := r.Exports(byRef)["commit"]; c.IsKnown() {
		t.Errorf("commit of a ref-only node is known before the build: %#v", c)
	}
	if files := r.KeyFiles(byRef); len(files) != 0 {
		t.Errorf("KeyFiles without patches = %v", files)
	}

	unknown := &kind.Node{Config: cty.UnknownVal(cty.DynamicPseudoType)}
	if c := r.Exports(unknown)["url"]; c.IsKnown() {
		t.Errorf("url of an unknown config is known: %#v", c)
	}
	if files := r.KeyFiles(&kind.Node{}); files != nil {
		t.Errorf("KeyFiles of an empty node = %v", files)
	}
}

func TestPatchLabel(t *testing.T) {
	root := filepath.FromSlash("/pipe")
	tests := []struct{ path, want string }{
		{"patches/a.patch", "patches/a.patch"},
		{"./patches/../a.patch", "a.patch"},
		{"/pipe/.kiln/out/git_repo.msrl/x.patch", ".kiln/out/git_repo.msrl/x.patch"},
		{"/elsewhere/x.patch", "/elsewhere/x.patch"},
		{"/pipeline2/x.patch", "/pipeline2/x.patch"},
	}
	for _, tt := range tests {
		if got := patchLabel(root, tt.path); got != tt.want {
			t.Errorf("patchLabel(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
