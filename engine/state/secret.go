package state

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// secretName is the file holding a state folder's secret key.
const secretName = "secret"

// Secret is the key of the keyed hash (HMAC-SHA256) that stands for a
// sensitive value — a variable declared sensitive, a value read with env() —
// wherever kiln writes one down: key lines in the state and kiln.lock.hcl,
// explain, plans and diffs. Without the key, a guessed value cannot be
// checked against them offline, as it could against a plain hash. Each state
// folder makes its own at first use, dir/secret (mode 0600, never written
// anywhere else), so the key of a node with a sensitive value differs from
// one state folder to another.
type Secret struct {
	dir  string
	once sync.Once
	key  []byte
	err  error
}

var secrets = struct {
	mu sync.Mutex
	m  map[string]*Secret
}{m: map[string]*Secret{}}

// SecretOf returns the secret of the state folder dir; it is read, or made,
// at first use.
func SecretOf(dir string) *Secret {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	s := secrets.m[dir]
	if s == nil {
		s = &Secret{dir: dir}
		secrets.m[dir] = s
	}
	return s
}

// Sum is the short keyed hash of b that stands for a sensitive value.
func (s *Secret) Sum(b []byte) (string, error) {
	s.once.Do(func() { s.key, s.err = loadSecret(s.dir) })
	if s.err != nil {
		return "", s.err
	}
	m := hmac.New(sha256.New, s.key)
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil))[:12], nil
}

// loadSecret reads dir/secret, making it first if there is none. Two kiln
// processes making it at once agree: the file is linked into place only if
// none is there yet, and the loser reads the winner's.
func loadSecret(dir string) ([]byte, error) {
	path := filepath.Join(dir, secretName)
	key, err := readSecret(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := MakeDir(dir); err != nil {
		return nil, err
	}
	key = make([]byte, 32)
	rand.Read(key)
	tmp, err := os.CreateTemp(dir, "."+secretName+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("making the state folder's secret: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		return readSecret(path)
	}
	if err != nil {
		return nil, fmt.Errorf("making the state folder's secret %s: %s%w", path, spaceProblem(err), err)
	}
	return key, syncDir(dir)
}

func readSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(string(trimNewline(b)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("the secret %s is damaged: remove it (the keys of nodes with sensitive values change once, and they rebuild)", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600)
	}
	return key, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
