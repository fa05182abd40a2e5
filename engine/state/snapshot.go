package state

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// The snapshot is JSON with one record per line, records sorted by address
// and history by key, so it is deterministic, readable and diffable, and a
// large one is decoded in parallel:
//
//	{"version":3,"lineage":"…","serial":N,"sum":"…","records":[
//	{"addr":"exec.a",…},
//	{"addr":"exec.b",…}
//	],"history":[
//	{"addr":"exec.a","key":…}
//	]}
//
// sum is the SHA-256 of everything after the first line: a version 3
// snapshot whose bytes do not match it (a truncated file, a flipped bit, a
// hand edit) is refused as damaged, never read as another state. Version 1
// had no history (its last line is "]}" right after the records) and
// versions 1 and 2 no sum; those are read, in this layout or as any valid
// JSON of the same shape, by the slower generic decoder.
type snapshot struct {
	Version int       `json:"version"`
	Lineage string    `json:"lineage"`
	Serial  uint64    `json:"serial"`
	Sum     string    `json:"sum,omitempty"`
	Records []*Record `json:"records"`
	History []*Record `json:"history,omitempty"`
}

// sumFrom is the version 3 checksum of a snapshot's body: every byte after
// its first line.
func sumFrom(body []byte) string {
	s := sha256.Sum256(body)
	return hex.EncodeToString(s[:])
}

// checkSum refuses a snapshot of version 3 or later whose body does not
// have the sum its first line names; older versions have none to check,
// and a newer one is left to the version check.
func checkSum(data []byte) (problem string, ok bool) {
	head, body, found := bytes.Cut(data, []byte{'\n'})
	if !found {
		return "", true // not the line layout: the decoder says what is wrong
	}
	var h struct {
		Version int    `json:"version"`
		Sum     string `json:"sum"`
	}
	if !bytes.HasSuffix(head, []byte(`"records":[`)) || json.Unmarshal(append(bytes.Clone(head), ']', '}'), &h) != nil || h.Version < 3 || h.Version > FormatVersion {
		return "", true
	}
	switch {
	case h.Sum == "":
		return "its first line has no checksum (sum)", false
	case h.Sum != sumFrom(body):
		return "its contents do not match its checksum (truncated, damaged on disk or edited by hand?)", false
	}
	return "", true
}

const historyLine = `],"history":[`

// encodeSnapshot returns the snapshot of s with the given serial.
func encodeSnapshot(s *State, serial uint64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(recordSize * (len(s.Records) + len(s.History) + 1))
	head, err := writeSnapshot(&buf, s, serial)
	if err != nil {
		return nil, err
	}
	data := buf.Bytes()
	copy(data, head)
	return data, nil
}

// writeSnapshot writes the snapshot of s with the given serial to w, its
// first line with a placeholder for the sum, and returns the first line to
// write over it: as long as the placeholder, since a sum is always 64
// digits. The body goes through the sum as it is written, so a large state
// is never held in memory twice.
func writeSnapshot(w io.Writer, s *State, serial uint64) (head []byte, err error) {
	headFor := func(sum string) ([]byte, error) {
		head, err := json.Marshal(snapshot{Version: FormatVersion, Lineage: s.Lineage, Serial: serial, Sum: sum, Records: []*Record{}})
		if err != nil {
			return nil, fmt.Errorf("encoding state: %w", err)
		}
		return append(head[:len(head)-2], '\n'), nil // drop "]}" of the empty records list
	}
	room, err := headFor(sumFrom(nil))
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(room); err != nil {
		return nil, err
	}
	sum := sha256.New()
	body := bufio.NewWriterSize(io.MultiWriter(w, sum), 64<<10)
	if err := encodeRecords(body, s.Sorted(), "record"); err != nil {
		return nil, err
	}
	body.WriteString(historyLine + "\n")
	if err := encodeRecords(body, s.SortedHistory(), "history"); err != nil {
		return nil, err
	}
	body.WriteString("]}\n")
	if err := body.Flush(); err != nil {
		return nil, err
	}
	return headFor(hex.EncodeToString(sum.Sum(nil)))
}

// recordSize is about what a record takes in a snapshot, to size its
// buffer.
const recordSize = 1400

// encodeRecords writes recs, one a line, separated by commas.
func encodeRecords(w *bufio.Writer, recs []*Record, what string) error {
	for i, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			name := r.Addr
			if what == "history" {
				name = r.Key
			}
			return fmt.Errorf("encoding state %s %s: %w", what, name, err)
		}
		if i > 0 {
			w.WriteString(",\n")
		}
		w.Write(line)
	}
	if len(recs) > 0 {
		w.WriteByte('\n')
	}
	return nil
}

func decodeSnapshot(path string, data []byte) (*State, error) {
	corrupt := func(problem string, err error) error {
		return &CorruptError{Path: path, Problem: problem, Err: err,
			Advice: fmt.Sprintf("restore it from %s.backup (the snapshot before the last apply) or move it aside to start with an empty state", filepath.Base(path))}
	}
	if problem, ok := checkSum(data); !ok {
		return nil, corrupt(problem, nil)
	}
	snap, ok := decodeLines(data)
	if !ok {
		if err := json.Unmarshal(data, &snap); err != nil {
			if v := probeVersion(data); v > FormatVersion {
				return nil, tooNew(path, v)
			}
			if len(data) == 0 {
				return nil, corrupt("the file is empty", nil)
			}
			return nil, corrupt("not valid JSON (truncated or overwritten?)", err)
		}
	}
	switch {
	case snap.Version > FormatVersion:
		return nil, tooNew(path, snap.Version)
	case snap.Version < 1:
		return nil, corrupt(fmt.Sprintf("format version %d is not a kiln state version", snap.Version), nil)
	case snap.Lineage == "":
		return nil, corrupt("no lineage", nil)
	}
	s := &State{Version: snap.Version, Lineage: snap.Lineage, Serial: snap.Serial,
		Records: make(map[string]*Record, len(snap.Records)), History: make(map[string]*Record, len(snap.History))}
	for i, r := range snap.Records {
		if r == nil || r.Addr == "" {
			return nil, corrupt(fmt.Sprintf("record %d has no address", i+1), nil)
		}
		if _, dup := s.Records[r.Addr]; dup {
			return nil, corrupt(fmt.Sprintf("record %s appears twice", r.Addr), nil)
		}
		s.Records[r.Addr] = r
	}
	for i, r := range snap.History {
		if r == nil || r.Key == "" {
			return nil, corrupt(fmt.Sprintf("history record %d has no key", i+1), nil)
		}
		s.History[r.Key] = r
	}
	return s, nil
}

// decodeLines decodes a snapshot in the layout encodeSnapshot writes,
// records in parallel. ok is false if data has another layout or anything in
// it fails to decode; the caller then uses the generic decoder, which also
// produces the error message.
func decodeLines(data []byte) (snap snapshot, ok bool) {
	lines := bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
	if len(lines) < 2 || string(lines[len(lines)-1]) != "]}" {
		return snap, false
	}
	head := lines[0]
	if !bytes.HasSuffix(head, []byte(`"records":[`)) {
		return snap, false
	}
	if json.Unmarshal(append(bytes.Clone(head), ']', '}'), &snap) != nil || snap.Version > FormatVersion {
		return snap, false
	}
	body := lines[1 : len(lines)-1]
	var history [][]byte
	for i, l := range body {
		if string(l) == historyLine {
			body, history = body[:i], body[i+1:]
			break
		}
	}
	if !recordLines(body) || !recordLines(history) {
		return snap, false
	}
	snap.Records = make([]*Record, len(body))
	snap.History = make([]*Record, len(history))
	if !decodeRecords(body, snap.Records) || !decodeRecords(history, snap.History) {
		return snap, false
	}
	return snap, true
}

// recordLines checks that lines are JSON objects separated by commas, and
// strips the commas.
func recordLines(lines [][]byte) bool {
	for i, l := range lines {
		if i < len(lines)-1 {
			var comma bool
			if l, comma = bytes.CutSuffix(l, []byte{','}); !comma {
				return false
			}
			lines[i] = l
		}
		if len(l) < 2 || l[0] != '{' || l[len(l)-1] != '}' {
			return false
		}
	}
	return true
}

// decodeRecords decodes lines[i] into recs[i], spread over the CPUs.
func decodeRecords(lines [][]byte, recs []*Record) bool {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(lines)/256))
	chunk := (len(lines) + workers - 1) / workers
	var wg sync.WaitGroup
	var failed atomic.Bool
	for lo := 0; lo < len(lines); lo += chunk {
		hi := min(lo+chunk, len(lines))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				r := new(Record)
				if decodeRecord(lines[i], r) != nil {
					failed.Store(true)
					return
				}
				recs[i] = r
			}
		})
	}
	wg.Wait()
	return !failed.Load()
}

func tooNew(path string, v int) error {
	return &CorruptError{Path: path,
		Problem: fmt.Sprintf("written by a newer kiln (format version %d; this kiln reads version %d)", v, FormatVersion),
		Advice:  "use a newer kiln, or restore state.json.backup if it was written by this version"}
}

// probeVersion reads only the version of a snapshot that failed to decode,
// so a newer format is reported as such rather than as damage.
func probeVersion(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return 0
		}
		if k, _ := t.(string); k == "version" {
			var v int
			if dec.Decode(&v) != nil {
				return 0
			}
			return v
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return 0
		}
	}
	return 0
}
