package state

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestHolderAlive(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		holder  *Holder // nil: no apply ever took the lock
		release bool
		want    bool
	}{
		{name: "no lock file", want: false},
		{name: "this process", holder: &Holder{PID: os.Getpid(), Host: host}, want: true},
		{name: "a process that exited", holder: &Holder{PID: dead.Process.Pid, Host: host}, want: false},
		{name: "another host", holder: &Holder{PID: dead.Process.Pid, Host: host + "-other"}, want: true},
		{name: "released", holder: &Holder{PID: os.Getpid(), Host: host}, release: true, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.holder != nil {
				tt.holder.Started = time.Now()
				l, err := AcquireLock(dir, *tt.holder)
				if err != nil {
					t.Fatal(err)
				}
				if tt.release {
					l.Release()
				} else {
					defer l.Release()
				}
			}
			if got := HolderAlive(dir); got != tt.want {
				t.Errorf("HolderAlive = %v, want %v", got, tt.want)
			}
		})
	}
}
