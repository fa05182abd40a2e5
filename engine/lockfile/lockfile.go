package lockfile

import (
	"maps"
	"os"
	"path/filepath"

	"github.com/kilnbuild/kiln/engine/state"
)

// FileName is the lock file's name in the pipeline folder.
const FileName = "kiln.lock.hcl"

// Version is the newest lock format this kiln reads, and the one it writes.
const Version = 1

// File is a lock file's content.
type File struct {
	// Pins maps a node address to its pins (name → value).
	Pins map[string]map[string]string
	// Nodes maps a node address to its last successful build.
	Nodes map[string]Node
}

// Node is what the lock keeps of a node's last successful build.
type Node struct {
	Key string // hex
	// Digest is empty for a node whose result varies by nature
	// (deterministic = false): each run makes another one, and a lock
	// that changed with every training run would conflict on every git
	// revert of the pipeline.
	Digest string // hex
	Kiln   string // the kiln version that built it
}

// New returns an empty lock.
func New() *File {
	return &File{Pins: map[string]map[string]string{}, Nodes: map[string]Node{}}
}

// Path is the lock file of the pipeline whose folder is root.
func Path(root string) string { return filepath.Join(root, FileName) }

// Clone returns a deep copy.
func (f *File) Clone() *File {
	c := New()
	for a, p := range f.Pins {
		c.Pins[a] = maps.Clone(p)
	}
	maps.Copy(c.Nodes, f.Nodes)
	return c
}

// SetPins replaces the pins of addr; empty pins remove them.
func (f *File) SetPins(addr string, pins map[string]string) {
	if len(pins) == 0 {
		delete(f.Pins, addr)
		return
	}
	f.Pins[addr] = maps.Clone(pins)
}

// Retain drops the pins and node entries of addresses keep refuses: nodes
// that left the configuration.
func (f *File) Retain(keep func(addr string) bool) {
	maps.DeleteFunc(f.Pins, func(a string, _ map[string]string) bool { return !keep(a) })
	maps.DeleteFunc(f.Nodes, func(a string, _ Node) bool { return !keep(a) })
}

// Equal reports whether two locks hold the same content.
func (f *File) Equal(o *File) bool {
	return maps.EqualFunc(f.Pins, o.Pins, maps.Equal) && maps.Equal(f.Nodes, o.Nodes)
}

// Write replaces the file at path with the lock, atomically and durably,
// unless it already holds exactly these bytes.
func (f *File) Write(path string) error {
	b := f.Bytes()
	if old, err := os.ReadFile(path); err == nil && string(old) == string(b) {
		return nil
	}
	return state.WriteFileAtomic(path, b, 0o644)
}
