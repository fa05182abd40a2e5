// Command nginx-cache starts and stops the nginx of engine/remotecache/nginxtest
// for bench/scaleout.sh: `nginx-cache start DIR` prints the URL and leaves
// nginx running (its pid in DIR/nginx.pid); `nginx-cache stop DIR` stops it.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kilnbuild/kiln/engine/remotecache/nginxtest"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: nginx-cache start|stop DIR")
		os.Exit(2)
	}
	dir := os.Args[2]
	switch os.Args[1] {
	case "start":
		s, err := nginxtest.StartDetached(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "nginx-cache:", err)
			os.Exit(1)
		}
		fmt.Println(s.URL)
	case "stop":
		b, err := os.ReadFile(filepath.Join(dir, "nginx.pid"))
		if err != nil {
			return
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			for range 100 {
				if syscall.Kill(pid, 0) != nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: nginx-cache start|stop DIR")
		os.Exit(2)
	}
}
