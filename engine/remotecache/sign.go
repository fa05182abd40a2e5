package remotecache

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
)

// Keys are written in the layout of Nix's binary cache keys (its
// secret-key-files and trusted-public-keys): NAME:BASE64 of the secret
// key's 64 bytes (seed, then public key, as crypto/ed25519 and libsodium
// hold it) or of the public key's 32. A record's signatures are NAME:BASE64
// too, one per signing key, over the record's fingerprint
// (Record.fingerprint).

// SigningKey is the secret key a pushing host signs its records with.
type SigningKey struct {
	Name string
	priv ed25519.PrivateKey
}

// PublicKey is a key whose signatures a puller accepts (trusted_keys).
type PublicKey struct {
	Name string
	pub  ed25519.PublicKey
}

// String is the key as trusted_keys holds it: NAME:BASE64.
func (k PublicKey) String() string { return k.Name + ":" + base64.StdEncoding.EncodeToString(k.pub) }

// Public is the public key of k.
func (k *SigningKey) Public() PublicKey {
	return PublicKey{Name: k.Name, pub: k.priv.Public().(ed25519.PublicKey)}
}

// String is the secret key as its file holds it: NAME:BASE64.
func (k *SigningKey) String() string {
	return k.Name + ":" + base64.StdEncoding.EncodeToString(k.priv)
}

var keyName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// GenerateKey makes a new signing key called name (letters, digits, dots,
// dashes and underscores, as ci-1 or cache.example.org-1).
func GenerateKey(name string) (*SigningKey, error) {
	if !keyName.MatchString(name) {
		return nil, fmt.Errorf("key name %q: use up to 64 letters, digits, dots, dashes and underscores, like ci-1", name)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &SigningKey{Name: name, priv: priv}, nil
}

func splitKey(s string) (name string, b []byte, err error) {
	name, enc, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || !keyName.MatchString(name) {
		return "", nil, errors.New("want NAME:BASE64, like ci-1:ZmFrZS4uLg==")
	}
	b, err = base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", nil, fmt.Errorf("key %s: %w", name, err)
	}
	return name, b, nil
}

// ParsePublicKey reads a trusted key, NAME:BASE64 of 32 bytes.
func ParsePublicKey(s string) (PublicKey, error) {
	name, b, err := splitKey(s)
	if err != nil {
		return PublicKey{}, fmt.Errorf("public key %q: %w", s, err)
	}
	if len(b) != ed25519.PublicKeySize {
		return PublicKey{}, fmt.Errorf("public key %s: %d bytes, an ed25519 public key has %d (is it the secret key?)", name, len(b), ed25519.PublicKeySize)
	}
	return PublicKey{Name: name, pub: ed25519.PublicKey(b)}, nil
}

// ParseSigningKey reads a secret key, NAME:BASE64 of 64 bytes.
func ParseSigningKey(s string) (*SigningKey, error) {
	name, b, err := splitKey(s)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if len(b) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("signing key %s: %d bytes, an ed25519 secret key has %d (is it the public key?)", name, len(b), ed25519.PrivateKeySize)
	}
	priv := ed25519.PrivateKey(b)
	if !ed25519.NewKeyFromSeed(priv.Seed()).Equal(priv) {
		return nil, fmt.Errorf("signing key %s: its public half does not belong to its seed", name)
	}
	return &SigningKey{Name: name, priv: priv}, nil
}

// LoadSigningKey reads the secret key file at path.
func LoadSigningKey(path string) (*SigningKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the cache signing key: %w", err)
	}
	k, err := ParseSigningKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// signatureDomain starts every message kiln signs, so a signature over a
// record can be nothing else.
const signatureDomain = "kiln-cache-record-signature/1\n"

// fingerprint is what a record's signatures sign: the labelled lines of
// every field but the file list, which the tree digest stands for (Check
// verifies that the files give it), hashed as a key is.
func (r *Record) fingerprint() []byte {
	k := hash.NewKey()
	k.Add("record", r.Format)
	k.Add("key", r.Key)
	k.Add("digest", r.Digest)
	k.Add("tree", r.Tree)
	k.Add("kind", r.Kind)
	k.Add("addr", r.Addr)
	k.Add("host", r.Host)
	k.Add("deterministic", strconv.FormatBool(r.Deterministic))
	k.Add("built", r.Built.UTC().Format(time.RFC3339Nano))
	names := make([]string, 0, len(r.Attrs))
	for name := range r.Attrs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		k.Add("attr "+strconv.Quote(name), r.Attrs[name])
	}
	return append([]byte(signatureDomain), k.Sum().String()...)
}

// Sign adds k's signature to r, replacing any earlier one by a key of the
// same name. Sign after the record is complete: any later change breaks it.
func (r *Record) Sign(k *SigningKey) {
	sig := k.Name + ":" + base64.StdEncoding.EncodeToString(ed25519.Sign(k.priv, r.fingerprint()))
	r.Sigs = slices.DeleteFunc(r.Sigs, func(s string) bool { return strings.HasPrefix(s, k.Name+":") })
	r.Sigs = append(r.Sigs, sig)
}

// UntrustedError says a record was refused because no trusted key signed
// it.
type UntrustedError struct {
	Key    string // the node key
	Reason string
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("the cache's record of %s is not trusted: %s", human.Short(e.Key), e.Reason)
}

// Verify returns the name of the first key of trusted that signed r, or
// an *UntrustedError that says why none did: no signature, signatures only
// by keys trusted does not name, or a signature by a trusted name that does
// not verify (the record was altered after it was signed, or signed by
// another key of that name).
func (r *Record) Verify(trusted []PublicKey) (string, error) {
	if len(r.Sigs) == 0 {
		return "", &UntrustedError{Key: r.Key, Reason: "it is unsigned, and trusted_keys accepts only records signed by " + names(trusted)}
	}
	msg := r.fingerprint()
	var others, bad []string
	for _, s := range r.Sigs {
		name, sig, err := splitKey(s)
		if err != nil {
			continue
		}
		named := false // a key being replaced may share its name with the next
		for _, k := range trusted {
			if k.Name != name {
				continue
			}
			named = true
			if len(sig) == ed25519.SignatureSize && ed25519.Verify(k.pub, msg, sig) {
				return name, nil
			}
		}
		if named {
			bad = append(bad, name)
		} else {
			others = append(others, name)
		}
	}
	if len(bad) > 0 {
		return "", &UntrustedError{Key: r.Key, Reason: fmt.Sprintf("its signature by %s does not verify: the record was changed after it was signed, or signed by another key of that name", strings.Join(bad, ", "))}
	}
	if len(others) == 0 {
		return "", &UntrustedError{Key: r.Key, Reason: "none of its signatures can be read"}
	}
	return "", &UntrustedError{Key: r.Key, Reason: fmt.Sprintf("it is signed by %s, which trusted_keys does not name (it accepts %s)", strings.Join(others, ", "), names(trusted))}
}

func names(keys []PublicKey) string {
	var out []string
	for _, k := range keys {
		out = append(out, k.Name)
	}
	return strings.Join(out, " or ")
}
