package service

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checkPortFree fails when something already listens on port, naming the
// process that holds it when /proc shows it.
func checkPortFree(port int) error {
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(port))
	if err == nil {
		return ln.Close()
	}
	holder := "another process"
	if pid, ok := portOwner(port); ok {
		holder = fmt.Sprintf("pid %d", pid)
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil {
			holder += " (" + strings.TrimSpace(string(comm)) + ")"
		}
	}
	return fmt.Errorf("port %d already in use by %s: stop it, or give this service another port (%v)", port, holder, err)
}

// portOwner finds the process with a listening TCP socket on port.
func portOwner(port int) (int, bool) {
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		for _, ino := range listeningInodes(table, port) {
			inodes[ino] = true
		}
	}
	if len(inodes) == 0 {
		return 0, false
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil {
				continue
			}
			if ino, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
				return pid, true
			}
		}
	}
	return 0, false
}

// listeningInodes reads a /proc/net/tcp table: the socket inodes in state
// LISTEN (0A) on port.
func listeningInodes(table string, port int) []string {
	f, err := os.Open(table)
	if err != nil {
		return nil
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], want) {
			continue
		}
		out = append(out, fields[9])
	}
	return out
}
