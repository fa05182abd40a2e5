package sandbox

import "sync"

// Held keeps folders that do not change while it lives — the run folders
// of upstream results during one apply — open, so that each run's rules
// allow them without opening them again. A sealed run may read the result
// of every node it depends on, directly or through others: deep in a
// layered pipeline that is thousands of folders per run, and opening,
// inspecting and closing each one cost several times the rule itself.
// A folder is held until Close; past a bound on how many descriptors it
// holds, a folder is opened by its path when its rule is added, as if it
// were not held.
type Held struct {
	mu  sync.Mutex
	fds map[string]heldFolder
	max int
}

type heldFolder struct {
	fd  int
	dir bool
}

// NewHeld holds folders for the policies that name it (Policy.Held).
func NewHeld() *Held { return &Held{fds: map[string]heldFolder{}, max: heldBound()} }

// Hold keeps path open, which must not be replaced while h holds it: an
// upstream's run folder, which only a garbage collection removes, or an
// entry beside the folders above the pipeline folder, as outsideOf holds
// them for the whole process.
func (h *Held) Hold(path string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.fds[path]; ok || len(h.fds) >= h.max {
		return
	}
	if fd, dir, ok := openPath(path); ok {
		h.fds[path] = heldFolder{fd: fd, dir: dir}
	}
}

// of is path's descriptor while h holds it.
func (h *Held) of(path string) (heldFolder, bool) {
	if h == nil {
		return heldFolder{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	f, ok := h.fds[path]
	return f, ok
}

// Close closes every descriptor h holds, once no run is being started.
func (h *Held) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.fds {
		closePath(f.fd)
	}
	clear(h.fds)
}
