package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The file system rights Landlock knows, by the ABI that added them.
const (
	rightsABI1 = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	rightRefer    = unix.LANDLOCK_ACCESS_FS_REFER    // ABI 2
	rightTruncate = unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3
	rightIoctlDev = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

	readRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// fileRights are the rights a rule on a file (not a folder) may grant.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE | rightTruncate | rightIoctlDev
)

// abi is the Landlock ABI version of the running kernel, 0 without
// Landlock, and why not.
var abi = sync.OnceValues(func() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("this kernel has no Landlock (it came in Linux 5.13)")
	case errno == unix.EOPNOTSUPP:
		return 0, errors.New("this kernel has Landlock turned off (add landlock to the lsm= boot parameter)")
	case errno != 0:
		return 0, fmt.Errorf("asking the kernel for Landlock: %v", errno)
	}
	return int(v), nil
})

// handled are the rights the kernel's ABI knows: every one is denied unless
// a rule allows it.
func handled(abi int) uint64 {
	h := uint64(rightsABI1)
	if abi >= 2 {
		h |= rightRefer
	}
	if abi >= 3 {
		h |= rightTruncate
	}
	if abi >= 5 {
		h |= rightIoctlDev
	}
	return h
}

// startConfined starts cmd on an OS thread of its own that first restricts
// itself to p: the forked command inherits the thread's restrictions. The
// goroutine never unlocks the thread, so it ends with it and kiln's other
// threads stay unrestricted.
func startConfined(cmd *exec.Cmd, p *Policy) error {
	rules, err := p.rules()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		if rules != nil {
			defer rules.close()
		}
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			done <- fmt.Errorf("sandbox: leaving the shared file system state: %w", err)
			return
		}
		unix.Umask(Umask)
		if p.View != nil {
			if err := p.View.enter(); err != nil {
				done <- err
				return
			}
			// The view's own folders (the places of its binds) may be
			// listed; what the binds show is allowed as the host's paths
			// are, by the rules on the folders they show.
			if rules != nil {
				if err := rules.add(ViewRoot, unix.LANDLOCK_ACCESS_FS_READ_DIR); err != nil {
					done <- err
					return
				}
			}
		}
		if rules != nil {
			if err := rules.restrict(); err != nil {
				done <- err
				return
			}
		}
		done <- cmd.Start()
	}()
	return <-done
}

// ruleset is a Landlock ruleset made in kiln's thread, to restrict one
// locked thread with.
type ruleset struct {
	fd      int
	handled uint64 // the rights the ruleset handles
}

// rules makes the ruleset of p, or nil where Landlock is missing. It is
// closed once the thread has restricted itself.
func (p *Policy) rules() (*ruleset, error) {
	v, err := abi()
	if err != nil || v < 1 {
		return nil, nil
	}
	h := handled(v)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: h}
	// Only the first field: older kernels know no other.
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), 8, 0)
	if errno != 0 {
		return nil, fmt.Errorf("sandbox: creating the Landlock ruleset: %w", errno)
	}
	rs := &ruleset{fd: int(fd), handled: h}
	if err := rs.allowPolicy(p, h); err != nil {
		rs.close()
		return nil, err
	}
	return rs, nil
}

// allowPolicy adds p's rules, with the rights h handles: read outside the
// pipeline folder, list it, read what p declares, write what p allows.
func (rs *ruleset) allowPolicy(p *Policy, h uint64) error {
	allow := func(path string, rights uint64) error {
		err := rs.add(path, rights&h)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
			return nil // nothing there to allow
		}
		return err
	}
	outside, err := outsideOf(p.Root)
	if err != nil {
		return err
	}
	for _, o := range outside {
		if o.fd < 0 {
			// Past what every run of the process holds, held for the runs
			// of this apply, as results are (see outsideOf).
			p.Held.Hold(o.path)
			if f, held := p.Held.of(o.path); held {
				o.fd, o.dir = f.fd, f.dir
			}
		}
		if err := rs.addOpen(o.fd, o.dir, (readRights|rightIoctlDev)&h, o.path); err != nil {
			return err
		}
	}
	// The pipeline folder's names may be listed, as a shell glob or a
	// listdir over declared inputs needs; what its files hold may not be
	// read unless declared.
	rootRights := uint64(unix.LANDLOCK_ACCESS_FS_READ_DIR)
	if p.ReadAll {
		rootRights = readRights
	}
	if err := allow(p.Root, rootRights); err != nil {
		return err
	}
	for _, path := range p.Read {
		if f, held := p.Held.of(path); held {
			if err := rs.addOpen(f.fd, f.dir, readRights&h, path); err != nil {
				return err
			}
			continue
		}
		if err := allow(path, readRights); err != nil {
			return err
		}
	}
	for _, path := range append(slices.Clone(p.Write), "/dev", "/proc") {
		if err := allow(path, h); err != nil {
			return err
		}
		// Landlock checks a path by the folders above it as the run sees
		// them, and a bind's folders above are the view's, not the host's:
		// a writable folder that holds a bound one (a host's writable
		// path around the pipeline folder) is allowed at the bind too.
		for _, src := range p.View.sourcesBelow(path) {
			if err := allow(src, h); err != nil {
				return err
			}
		}
	}
	return nil
}

// opened is a path held open (O_PATH) for the rules of every run.
type opened struct {
	path string
	fd   int
	dir  bool
}

// The entries around each pipeline folder, opened once: every run of an
// apply allows the same ones, and opening them again for each of 10,000
// runs would cost more than the runs' rules themselves.
var (
	outsideMu    sync.Mutex
	outsideCache = map[string][]opened{}
)

// maxHeld bounds the paths held open for all pipeline folders together.
const maxHeld = 512

// outsideOf are the entries siblingsOnTheWay names for root, held open
// while fewer than maxHeld paths are held for all roots; past that, by
// path alone, each opened when its rule is added.
func outsideOf(root string) ([]opened, error) {
	outsideMu.Lock()
	defer outsideMu.Unlock()
	if o, ok := outsideCache[root]; ok {
		return o, nil
	}
	paths, err := siblingsOnTheWay(root)
	if err != nil {
		return nil, err
	}
	held := 0
	for _, o := range outsideCache {
		held += len(o)
	}
	out := make([]opened, 0, len(paths))
	if held+len(paths) > maxHeld {
		for _, path := range paths {
			out = append(out, opened{path: path, fd: -1})
		}
		return out, nil
	}
	for _, path := range paths {
		fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone meanwhile, or not ours to see: nothing to allow
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			_ = unix.Close(fd)
			continue
		}
		out = append(out, opened{path: path, fd: fd, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	outsideCache[root] = out
	return out, nil
}

// addOpen allows rights beneath the path fd holds open, or, for fd -1,
// beneath path.
func (rs *ruleset) addOpen(fd int, dir bool, rights uint64, path string) error {
	if fd < 0 {
		err := rs.add(path, rights)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return err
	}
	if !dir {
		rights &= fileRights
	}
	if rights == 0 {
		return nil
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs.fd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return &os.PathError{Op: "sandbox: allow", Path: path, Err: errno}
	}
	return nil
}

// siblingsOnTheWay are the entries of every folder from / down to root's
// parent, but the one on the way to root: allowed, they leave root (and
// only root) out of what is readable. / itself, when root is /.
func siblingsOnTheWay(root string) ([]string, error) {
	root = filepath.Clean(root)
	if root == "/" || root == "" {
		return nil, nil
	}
	var out []string
	parts := strings.Split(strings.TrimPrefix(root, "/"), "/")
	dir := "/"
	for _, next := range parts {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("sandbox: listing %s to leave %s out: %w", dir, root, err)
		}
		for _, e := range entries {
			if e.Name() != next {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
		dir = filepath.Join(dir, next)
	}
	return out, nil
}

// add allows rights beneath path (on path itself when it is a file).
func (rs *ruleset) add(path string, rights uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "sandbox: open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "sandbox: stat", Path: path, Err: err}
	}
	return rs.addOpen(fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, rights, path)
}

// restrict confines the calling thread, which must be locked, and closes
// the ruleset.
func (rs *ruleset) restrict() error {
	defer rs.close()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rs.fd), 0, 0); errno != 0 {
		return fmt.Errorf("sandbox: Landlock restrict_self: %w", errno)
	}
	return nil
}

func (rs *ruleset) close() {
	if rs.fd >= 0 {
		_ = unix.Close(rs.fd)
		rs.fd = -1
	}
}

// Probe says what confines a run on this machine, and, where it is less
// than a sandbox, why.
func Probe() Protection {
	prot := Protection{}
	if err := Relocation(); err != nil {
		prot.ViewReason = err.Error()
	} else {
		prot.View = true
	}
	v, err := abi()
	if err != nil {
		prot.Reason = err.Error()
		return prot
	}
	prot.Landlock = v
	return prot
}

// The main goroutine keeps the main thread to itself, so a sealed start
// never runs on it: a locked thread that ends is killed, but the main
// thread cannot end and would stay parked in the run's namespace, file
// system state and Landlock domain, where /proc/self (the main thread's)
// would show them.
func init() { runtime.LockOSThread() }
