package remotecache

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func mustKey(t *testing.T, name string) *SigningKey {
	t.Helper()
	k, err := GenerateKey(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeysRoundTrip(t *testing.T) {
	k := mustKey(t, "ci-1")
	back, err := ParseSigningKey(k.String() + "\n")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ParsePublicKey(back.Public().String())
	if err != nil {
		t.Fatal(err)
	}
	if pub.String() != k.Public().String() || !strings.HasPrefix(pub.String(), "ci-1:") {
		t.Errorf("public key %s, want %s", pub, k.Public())
	}
	for _, bad := range []string{"", "ci-1", "ci 1:AAAA", "ci-1:not base64!", k.Public().String()} {
		if _, err := ParseSigningKey(bad); err == nil {
			t.Errorf("ParseSigningKey(%q) accepted it", bad)
		}
	}
	if _, err := ParsePublicKey(k.String()); err == nil || !strings.Contains(err.Error(), "secret key") {
		t.Errorf("a secret key given as a public one: err = %v, want it to say so", err)
	}
	if _, err := GenerateKey("no spaces"); err == nil {
		t.Error("GenerateKey took a name with a space")
	}
}

func TestVerify(t *testing.T) {
	ci, evil := mustKey(t, "ci-1"), mustKey(t, "evil-1")
	impostor := mustKey(t, "ci-1") // another key of the trusted name
	trusted := []PublicKey{ci.Public()}
	signed := func(k *SigningKey, change func(*Record)) *Record {
		r := &Record{Format: Format, Key: key, Digest: "d", Tree: "d", Kind: "exec", Attrs: map[string]string{"checksum": "sha256:1"}}
		if k != nil {
			r.Sign(k)
		}
		if change != nil {
			change(r)
		}
		return r
	}
	for _, tc := range []struct {
		name string
		rec  *Record
		want string // "" when trusted
	}{
		{"trusted", signed(ci, nil), ""},
		{"trusted among others", signed(evil, func(r *Record) { r.Sign(ci) }), ""},
		{"a second key of the name", signed(impostor, nil), ""},
		{"unsigned", signed(nil, nil), "it is unsigned"},
		{"another key", signed(evil, nil), "signed by evil-1, which trusted_keys does not name"},
		{"impostor of the name", signed(impostor, nil), "its signature by ci-1 does not verify"},
		{"digest changed", signed(ci, func(r *Record) { r.Digest = "e" }), "does not verify"},
		{"key changed", signed(ci, func(r *Record) { r.Key = strings.Repeat("f", 64) }), "does not verify"},
		{"attr added", signed(ci, func(r *Record) { r.Attrs["kiln.digest_by"] = "kind" }), "does not verify"},
		{"host changed", signed(ci, func(r *Record) { r.Host = "elsewhere" }), "does not verify"},
		{"garbage", signed(nil, func(r *Record) { r.Sigs = []string{"::"} }), "none of its signatures can be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := trusted
			if tc.name == "a second key of the name" {
				keys = []PublicKey{ci.Public(), impostor.Public()} // a key and its replacement
			}
			name, err := tc.rec.Verify(keys)
			if tc.want == "" {
				if err != nil || name != "ci-1" {
					t.Fatalf("Verify = %q, %v; want ci-1", name, err)
				}
				return
			}
			var ue *UntrustedError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %q, %v; want an *UntrustedError saying %q", name, err, tc.want)
			}
		})
	}
}

// TestSignedPushLookup: records pushed by a client with a signing key are
// accepted by a client that trusts it, through a real nginx, and refused by
// one that trusts another key, before their file list is read.
func TestSignedPushLookup(t *testing.T) {
	s := startNginx(t)
	ci := mustKey(t, "ci-1")
	dir := tree(t, sample)
	pusher := newClient(t, s.URL)
	pusher.Signer = ci
	if _, err := pusher.Push(context.Background(), dir, recordOf(t, key, dir), nil); err != nil {
		t.Fatal(err)
	}
	puller := newClient(t, s.URL)
	puller.Trusted = []PublicKey{mustKey(t, "other-1").Public(), ci.Public()}
	rec, err := puller.Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if rec.SignedBy != "ci-1" {
		t.Errorf("SignedBy = %q, want ci-1", rec.SignedBy)
	}
	if _, err := puller.Fetch(context.Background(), rec, t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	sum, err := puller.Summary(context.Background(), key)
	if err != nil || sum.SignedBy != "ci-1" {
		t.Fatalf("Summary = %+v, %v", sum, err)
	}

	wary := newClient(t, s.URL)
	wary.Trusted = []PublicKey{mustKey(t, "laptop-1").Public()}
	if _, err := wary.Lookup(context.Background(), key); err == nil || !strings.Contains(err.Error(), "signed by ci-1, which trusted_keys does not name") {
		t.Errorf("a record signed by an untrusted key: err = %v", err)
	}
}

// A record whose file list comes before its signature is refused by a
// client that trusts keys: kiln writes the list last, so nothing it lists
// is read before the signature checks.
func TestSignedFilesLast(t *testing.T) {
	ci := mustKey(t, "ci-1")
	rec := &Record{Format: Format, Key: key, Digest: "d", Tree: "d", Kind: "exec", Files: []File{{Path: "a", Type: "d"}}}
	rec.Sign(ci)
	b, _ := json.Marshal(rec)
	if i, j := strings.Index(string(b), `"sigs"`), strings.Index(string(b), `"files"`); i < 0 || i > j {
		t.Fatalf("kiln writes sigs after files: %s", b)
	}
	moved := `{"format":"` + Format + `","key":"` + key + `","files":[],"digest":"d","tree":"d","kind":"exec","sigs":["` + rec.Sigs[0] + `"]}`
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(moved)) })
	c.Trusted = []PublicKey{ci.Public()}
	if _, err := c.Summary(context.Background(), key); err == nil {
		t.Error("a record with its files first was accepted")
	}
}
