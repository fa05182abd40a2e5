package fetch

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
)

const rev = "0123456789abcdef0123456789abcdef01234567"

func TestPins(t *testing.T) {
	sum := "sha256:" + sha256Hex("x")
	res := &kind.Result{Attrs: map[string]string{"checksum": sum}}
	tests := []struct {
		name, body string
		want       map[string]string
	}{
		{"no checksum", `url = "https://e.test/a.bin"`, map[string]string{"checksum": sum, "url": "https://e.test/a.bin"}},
		{"checksum in the block", `
url      = "https://e.test/a.bin"
checksum = "` + sum + `"`, nil},
		{"huggingface", `
huggingface {
  repo     = "org/name"
  revision = "` + rev + `"
}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &kind.Node{Addr: addr.Node{Kind: "fetch", Name: "x"}, Config: decode(t, tt.body)}
			if diff := cmp.Diff(tt.want, (&Fetch{}).Pins(n, res)); diff != "" {
				t.Errorf("Pins (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPinAppliesOnlyToItsURL(t *testing.T) {
	sum := "sha256:" + sha256Hex("x")
	cfg := decode(t, `url = "https://e.test/a.bin"`)
	n := &kind.Node{Addr: addr.Node{Kind: "fetch", Name: "x"}, Config: cfg}
	tests := []struct {
		name   string
		pins   map[string]string
		locked string // the checksum the pinned config verifies against; "" when unpinned
		err    bool
	}{
		{"fits", map[string]string{"checksum": sum, "url": "https://e.test/a.bin"}, sum, false},
		{"other url", map[string]string{"checksum": sum, "url": "https://e.test/b.bin"}, "", false},
		{"malformed", map[string]string{"checksum": "sha256:zz", "url": "https://e.test/a.bin"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&Fetch{}).Pin(n, tt.pins)
			if (err != nil) != tt.err {
				t.Fatalf("Pin error = %v, want error %v", err, tt.err)
			}
			if err != nil {
				return
			}
			c, err := decodeConfig(got)
			if err != nil {
				t.Fatal(err)
			}
			if c.checksum != tt.locked || c.locked != (tt.locked != "") {
				t.Errorf("pinned config verifies against %q (locked %v), want %q", c.checksum, c.locked, tt.locked)
			}
			if ex := (&Fetch{}).Exports(&kind.Node{Config: got}); tt.locked != "" && ex["checksum"].AsString() != tt.locked {
				t.Errorf("checksum export = %#v, want the locked %s", ex["checksum"], tt.locked)
			}
		})
	}
}

// TestLockedChecksumMismatch: a download that differs from the locked
// checksum fails naming expected, got and the command that accepts it.
func TestLockedChecksumMismatch(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { _, _ = w.Write([]byte("new content")) })
	url := srv.URL + "/a.bin"
	old := "sha256:" + sha256Hex("old content")
	cfg, err := (&Fetch{}).Pin(&kind.Node{Config: decode(t, `url = "`+url+`"`)}, map[string]string{"checksum": old, "url": url})
	if err != nil {
		t.Fatal(err)
	}
	_, err = build(t, &Fetch{}, newBuild(t, t.TempDir(), cfg))
	if err == nil {
		t.Fatal("a download that differs from the locked checksum was accepted")
	}
	contains(t, "the error", err.Error(), "expected "+old, "got sha256:"+sha256Hex("new content"), "changed since it was locked", "kiln lock -update fetch.x")
}

func TestResolvePinsNeedsADownload(t *testing.T) {
	_, err := (&Fetch{}).ResolvePins(t.Context(), &kind.Node{Config: decode(t, `url = "https://e.test/a.bin"`)}, nil)
	if !errors.Is(err, kind.ErrPinNeedsBuild) {
		t.Errorf("ResolvePins without a checksum = %v, want ErrPinNeedsBuild", err)
	}
	pins, err := (&Fetch{}).ResolvePins(t.Context(), &kind.Node{Config: decode(t, `
url      = "https://e.test/a.bin"
checksum = "sha256:`+sha256Hex("x")+`"`)}, nil)
	if err != nil || pins != nil {
		t.Errorf("ResolvePins with a checksum = %v, %v; want nothing to pin", pins, err)
	}
}
