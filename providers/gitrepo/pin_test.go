package gitrepo

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

const shaA = "d62da4950573d7a4b7ef2362337952e7ab59e78d"

func pinNode(t *testing.T, body string) *kind.Node {
	return &kind.Node{Addr: addr.Node{Kind: "git_repo", Name: "x"}, Config: decode(t, body), Root: t.TempDir()}
}

func TestPinsOnlyForRefs(t *testing.T) {
	res := &kind.Result{Attrs: map[string]string{"commit": shaA}}
	tests := []struct {
		name, body string
		want       map[string]string
	}{
		{"ref", `
url = "https://example.test/r.git"
ref = "main"`, map[string]string{"commit": shaA, "ref": "main", "url": "https://example.test/r.git"}},
		{"commit", `
url    = "https://example.test/r.git"
commit = "` + shaA + `"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, testRepo().Pins(pinNode(t, tt.body), res)); diff != "" {
				t.Errorf("Pins (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPin(t *testing.T) {
	n := pinNode(t, `
url = "https://example.test/r.git"
ref = "main"`)
	fits := map[string]string{"commit": shaA, "ref": "main", "url": "https://example.test/r.git"}
	tests := []struct {
		name       string
		pins       map[string]string
		wantCommit string // "" when the pin must be ignored
		wantErr    string
	}{
		{"fits", fits, shaA, ""},
		{"uppercase commit", map[string]string{"commit": strings.ToUpper(shaA), "ref": "main", "url": "https://example.test/r.git"}, shaA, ""},
		{"other ref", map[string]string{"commit": shaA, "ref": "dev", "url": "https://example.test/r.git"}, "", ""},
		{"other url", map[string]string{"commit": shaA, "ref": "main", "url": "https://example.test/fork.git"}, "", ""},
		{"short commit", map[string]string{"commit": "d62da49", "ref": "main", "url": "https://example.test/r.git"}, "", "not a full 40-hex SHA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testRepo().Pin(n, tt.pins)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Pin error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c, err := decodeConfig(got)
			if err != nil {
				t.Fatalf("the pinned configuration does not decode: %v", err)
			}
			if tt.wantCommit == "" {
				if !got.RawEquals(n.Config) {
					t.Errorf("a pin that does not fit changed the configuration: %#v", got)
				}
				return
			}
			if c.Commit != tt.wantCommit || c.Ref != "" {
				t.Errorf("pinned config: commit %q ref %q, want commit %s and no ref", c.Commit, c.Ref, tt.wantCommit)
			}
			if ex := testRepo().Exports(&kind.Node{Config: got}); !ex["commit"].RawEquals(cty.StringVal(tt.wantCommit)) {
				t.Errorf("commit export = %#v, want it known at plan time", ex["commit"])
			}
		})
	}
	withCommit := pinNode(t, `
url    = "https://example.test/r.git"
commit = "`+strings.Repeat("0", 40)+`"`)
	if got, err := testRepo().Pin(withCommit, fits); err != nil || !got.RawEquals(withCommit.Config) {
		t.Errorf("Pin of a configuration with its own commit = %#v, %v; want it unchanged", got, err)
	}
}

// TestResolvePins: ls-remote resolves a branch and a tag (peeled to its
// commit) of a real repository without checking anything out.
func TestResolvePins(t *testing.T) {
	src := newSource(t)
	first := src.commit("one", map[string]string{"f": "1"})
	gitIn(t, src.dir, "tag", "-a", "-m", "v1", "v1")
	second := src.commit("two", map[string]string{"f": "2"})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for ref, want := range map[string]string{"main": second, "v1": first} {
		n := pinNode(t, `
url = "`+src.dir+`"
ref = "`+ref+`"`)
		got, err := testRepo().ResolvePins(context.Background(), n, env)
		if err != nil {
			t.Fatalf("ResolvePins %s: %v", ref, err)
		}
		if diff := cmp.Diff(map[string]string{"commit": want, "ref": ref, "url": src.dir}, got); diff != "" {
			t.Errorf("ResolvePins %s (-want +got):\n%s", ref, diff)
		}
	}
	n := pinNode(t, `
url = "`+src.dir+`"
ref = "nope"`)
	if _, err := testRepo().ResolvePins(context.Background(), n, env); err == nil || !strings.Contains(err.Error(), "ref nope not found") {
		t.Errorf("ResolvePins of a missing ref = %v, want it named", err)
	}
}
