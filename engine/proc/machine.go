package proc

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Arch is the machine's architecture as uname -m prints it, which is how
// Ascend install paths name it (x86_64-linux, aarch64-linux).
func Arch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	default:
		return runtime.GOARCH
	}
}

// ExpandArch replaces <arch> (and the escaped form ${arch}) in a path.
func ExpandArch(s string) string {
	s = strings.ReplaceAll(s, "${arch}", Arch())
	return strings.ReplaceAll(s, "<arch>", Arch())
}

// Environ is the named variables of kiln's own environment, for probe
// commands that run with a minimal environment.
func Environ(names ...string) []string {
	var env []string
	for _, k := range names {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ReadKey returns the value of key in a key=value file such as Ascend's
// version.info; keys compare case-insensitively, surrounding blanks and
// quotes are dropped. found is false when no line sets key.
func ReadKey(path, key string) (value string, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		return strings.Trim(strings.TrimSpace(v), `"'`), true, nil
	}
	return "", false, sc.Err()
}

// MemoryMB is the machine's memory in MiB, from /proc/meminfo (Linux); ok
// is false where that cannot be read.
func MemoryMB() (mb int64, ok bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, found := strings.CutPrefix(line, "MemTotal:")
		if !found {
			continue
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil || kb <= 0 {
			return 0, false
		}
		return kb / 1024, true
	}
	return 0, false
}
