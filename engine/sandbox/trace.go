package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// straceArgs follow every process the command starts and log each file it
// opens and program it runs, with the path each open resolved to (-y).
var straceArgs = []string{"-f", "-qq", "-y", "-e", "trace=open,openat,openat2,creat,execve,execveat"}

// traced rewrites cmd to run under strace, its log written to out.
func traced(cmd *exec.Cmd, out string) error {
	strace, err := exec.LookPath("strace")
	if err != nil {
		return errors.New("kiln apply -trace runs the node under strace, which is not on PATH: install it (apt-get install -y strace)")
	}
	args := append([]string{"strace"}, straceArgs...)
	args = append(args, "-o", out, "--", cmd.Path)
	cmd.Args = append(args, cmd.Args[1:]...)
	cmd.Path = strace
	return nil
}

// Trace is what a traced run touched: every path as the kernel resolved
// it (links followed), sorted, each once.
type Trace struct {
	Read     []string // files and folders opened for reading
	Written  []string // files opened for writing or created
	Programs []string // programs run
}

// ReadTrace reads the log strace wrote for a traced run, with each path
// as the host names it (v is the run's view, nil for none). Opens that
// failed are left out: the run did not read what was not there.
func ReadTrace(path string, v *View) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the trace: %w", err)
	}
	defer f.Close()
	read, written, programs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		_, call, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		call = strings.TrimLeft(call, " ")
		name, _, _ := strings.Cut(call, "(")
		switch name {
		case "execve", "execveat":
			if strings.HasSuffix(call, ") = 0") {
				if p, ok := firstString(call); ok {
					programs[v.Host(p)] = true
				}
			}
		case "open", "openat", "openat2", "creat":
			res, ok := openedPath(call)
			if !ok {
				continue
			}
			res = v.Host(res)
			if name == "creat" || strings.Contains(call, "O_WRONLY") || strings.Contains(call, "O_RDWR") || strings.Contains(call, "O_CREAT") {
				written[res] = true
			} else {
				read[res] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the trace %s: %w", path, err)
	}
	return &Trace{Read: sorted(read), Written: sorted(written), Programs: sorted(programs)}, nil
}

// openedPath is the path a successful open resolved to: "= 3</path>".
func openedPath(call string) (string, bool) {
	i := strings.LastIndex(call, ") = ")
	if i < 0 {
		return "", false
	}
	res := call[i+len(") = "):]
	lt := strings.IndexByte(res, '<')
	if lt < 0 || !strings.HasSuffix(res, ">") {
		return "", false // failed (-1 ENOENT ...) or not a path
	}
	if _, err := strconv.Atoi(res[:lt]); err != nil {
		return "", false
	}
	return res[lt+1 : len(res)-1], true
}

// firstString is the first quoted argument of a call, unquoted.
func firstString(call string) (string, bool) {
	i := strings.IndexByte(call, '"')
	if i < 0 {
		return "", false
	}
	for j := i + 1; j < len(call); j++ {
		if call[j] == '\\' {
			j++
			continue
		}
		if call[j] == '"' {
			s, err := strconv.Unquote(call[i : j+1])
			return s, err == nil
		}
	}
	return "", false
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
