package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flipBit is data with one bit of byte i inverted.
func flipBit(data []byte, i int) []byte {
	out := bytes.Clone(data)
	out[i] ^= 0x04
	return out
}

func TestCorruptSnapshot(t *testing.T) {
	good := &State{Lineage: "abc", Records: map[string]*Record{}}
	for i := range 3 {
		r := sampleRecord(i)
		good.Records[r.Addr] = r
	}
	valid, err := encodeSnapshot(good, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string // in the error message
	}{
		{"truncated", valid[:len(valid)/2], "state.json.backup"},
		{"truncated at a line end", valid[:bytes.IndexByte(valid, '\n')+1], "do not match its checksum"},
		{"missing end", bytes.TrimSuffix(valid, []byte("]}\n")), "do not match its checksum"},
		{"a flipped bit", flipBit(valid, len(valid)*2/3), "do not match its checksum"},
		{"a record edited, still valid JSON", bytes.Replace(valid, []byte(`"exec.`), []byte(`"exec_`), 1), "do not match its checksum"},
		{"no sum", regexp.MustCompile(`"sum":"[0-9a-f]+",`).ReplaceAll(bytes.Clone(valid), nil), "has no checksum"},
		{"garbage", []byte("\x00\x01garbage\xff"), "not valid JSON"},
		{"empty", nil, "empty"},
		{"zeros", make([]byte, 4096), "not valid JSON"},
		{"trailing garbage", append(bytes.Clone(valid), "xx"...), "do not match its checksum"},
		{"wrong type", []byte(`{"version":1,"lineage":"a","serial":1,"records":{}}`), "not valid JSON"},
		{"newer version", bytes.Replace(valid, []byte(fmt.Sprintf(`"version":%d`, FormatVersion)), []byte(fmt.Sprintf(`"version":%d`, FormatVersion+1)), 1), fmt.Sprintf("newer kiln (format version %d", FormatVersion+1)},
		{"newer version, other shape", []byte(fmt.Sprintf(`{"records":{"by_addr":{}},"version":%d}`, FormatVersion+1)), fmt.Sprintf("newer kiln (format version %d", FormatVersion+1)},
		{"no version", []byte(`{"lineage":"a","serial":1,"records":[]}`), "format version 0"},
		{"no lineage", []byte(`{"version":1,"serial":1,"records":[]}`), "no lineage"},
		{"record without address", []byte(`{"version":1,"lineage":"a","records":[{"kind":"exec"}]}`), "record 1 has no address"},
		{"null record", []byte(`{"version":1,"lineage":"a","records":[null]}`), "record 1 has no address"},
		{"duplicate address", []byte(`{"version":1,"lineage":"a","records":[{"addr":"exec.a"},{"addr":"exec.a"}]}`), "exec.a appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, snapshotName)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("Load = %v, want *CorruptError", err)
			}
			if ce.Path != path || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want path %s and %q in it", err, path, tc.want)
			}
			// Nothing overwrites the damaged file, an apply included.
			if _, err := OpenWriter(dir, newState()); !errors.As(err, &ce) {
				t.Errorf("OpenWriter = %v, want *CorruptError", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, tc.data) {
				t.Error("the damaged snapshot was changed")
			}
		})
	}
}

func TestCorruptErrorAdvice(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, snapshotName), []byte(`{"version":1,`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	msg := err.Error()
	for _, want := range []string{filepath.Join(dir, snapshotName), "truncated", "restore it from state.json.backup"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
}
