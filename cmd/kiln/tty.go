package main

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalWidth is the columns of the terminal on standard output now, or
// 0 when it cannot tell.
func terminalWidth() int {
	w, _, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// liveStatus reports whether apply may redraw a status block: standard
// output is a terminal that understands cursor movement.
func (c *cli) liveStatus() bool { return c.isTTY && c.getenv("TERM") != "dumb" }

// resizes delivers SIGWINCH, so the live status follows a resized
// terminal; stop ends the delivery.
func resizes() (ch chan os.Signal, stop func()) {
	ch = make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	return ch, func() { signal.Stop(ch) }
}
