package memo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestHolds: a memo file is left as it is only when it holds exactly the
// bytes about to be written, also past the first piece read.
func TestHolds(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("kiln memo "), 20_000) // three pieces
	path := filepath.Join(dir, "memo")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if !holds(path, data) {
		t.Error("the file holds the data, holds says it does not")
	}
	changed := bytes.Clone(data)
	changed[len(changed)-1] ^= 1
	for name, other := range map[string][]byte{
		"the last byte changed": changed,
		"one byte more":         append(bytes.Clone(data), 'x'),
		"one byte less":         data[:len(data)-1],
		"empty":                 nil,
	} {
		if holds(path, other) {
			t.Errorf("%s: holds says the file holds it", name)
		}
	}
	if holds(filepath.Join(dir, "absent"), nil) {
		t.Error("a file that is not there holds nothing, not even no bytes")
	}
}
