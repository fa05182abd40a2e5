// Package slurmtest makes sure the one-node test cluster of
// scripts/slurm-cluster (8 countable NPUs, Gres=npu:8) is up, for kiln's
// Slurm tests and benchmarks.
//
// The cluster is one per machine (slurmctld, slurmd and munged are system
// daemons), shared by every test process that runs at the same time, so
// tests start it when it does not answer and never stop it: .ci/run stops
// it by pid when the suite ends, and on a workstation
// `scripts/slurm-cluster stop` does. Starting is serialised across
// processes with an flock. Without Slurm installed Up fails, naming the
// packages, so a machine without them fails loudly rather than skipping.
//
// UpTwoNodes does the same for the two-node cluster of
// `scripts/slurm-cluster start2` (nodes n1 and n2, two slurmd on this
// machine), a cluster of its own that clients reach with the SLURM_CONF it
// returns; it is stopped with `scripts/slurm-cluster stop2`.
package slurmtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kilnbuild/kiln/engine/filelock"
)

var (
	once  sync.Once
	upErr error

	twoOnce sync.Once
	twoErr  error
	twoConf string
)

// Up starts the test cluster unless it answers already.
func Up() error {
	once.Do(func() { upErr = up() })
	return upErr
}

func up() error {
	_, err := start("")
	return err
}

// UpTwoNodes starts the two-node test cluster unless it answers already,
// and returns its SLURM_CONF.
func UpTwoNodes() (string, error) {
	twoOnce.Do(func() {
		var script string
		if script, twoErr = start("2"); twoErr != nil {
			return
		}
		out, err := exec.Command(script, "conf2").Output()
		if twoErr = err; err == nil {
			twoConf = strings.TrimSpace(string(out))
		}
	})
	return twoConf, twoErr
}

// start runs scripts/slurm-cluster's start (suffix "") or start2 (suffix
// "2") unless its status answers, and returns the script's path. Up and
// UpTwoNodes may run at once, so nothing here is shared between them.
func start(suffix string) (string, error) {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return "", errors.New("sbatch not found: apt-get install -y slurm-wlm munge (the Slurm executor is tested against a real one-node cluster)")
	}
	script, err := findScript()
	if err != nil {
		return "", err
	}
	if exec.Command(script, "status"+suffix).Run() == nil {
		return script, nil
	}
	lock, err := filelock.Wait(context.Background(), filepath.Join(os.TempDir(), "kiln-slurm-cluster"+suffix+".lock"))
	if err != nil {
		return "", err
	}
	defer lock.Unlock()
	out, err := exec.Command(script, "start"+suffix).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s start%s: %v: %s", script, suffix, err, strings.TrimSpace(string(out)))
	}
	return script, nil
}

// findScript finds scripts/slurm-cluster above the working folder.
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "scripts", "slurm-cluster")
		if _, err := os.Stat(p); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return p, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("scripts/slurm-cluster not found above the working folder")
		}
		dir = parent
	}
}
