package state

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// ReadStamp returns the lineage and serial of the state in dir by reading
// only the snapshot's first line. ok is false when there is no snapshot, a
// journal is pending (an apply is running or crashed), or the header is not
// in the layout Close writes.
func ReadStamp(dir string) (lineage string, serial uint64, ok bool) {
	if _, err := os.Lstat(filepath.Join(dir, "state.journal")); err == nil {
		return "", 0, false
	}
	f, err := os.Open(filepath.Join(dir, "state.json"))
	if err != nil {
		return "", 0, false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 512).ReadString('\n')
	if err != nil {
		return "", 0, false
	}
	head, found := strings.CutSuffix(strings.TrimSpace(line), `"records":[`)
	if !found {
		return "", 0, false
	}
	var h struct {
		Version int    `json:"version"`
		Lineage string `json:"lineage"`
		Serial  uint64 `json:"serial"`
	}
	if json.Unmarshal([]byte(strings.TrimSuffix(head, ",")+"}"), &h) != nil || h.Version < 1 || h.Version > FormatVersion || h.Lineage == "" {
		return "", 0, false
	}
	return h.Lineage, h.Serial, true
}

// SnapshotPath is the state file (the snapshot) in the state folder dir.
func SnapshotPath(dir string) string { return filepath.Join(dir, snapshotName) }
