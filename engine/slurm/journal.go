package slurm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/state"
)

// Journal keeps, per key, the job kiln submitted for it: written (and
// fsynced) right after sbatch answered and before kiln waits, removed once
// the job's result is settled. A kiln that died meanwhile leaves the entry,
// and the next one adopts the job instead of submitting it again.
type Journal struct {
	Dir string // one KEY.json per job
}

// Job is one journal entry.
type Job struct {
	Key       string    `json:"key"`  // what the job builds: kiln's node key
	Addr      string    `json:"addr"` // the node, for messages
	ID        string    `json:"job_id"`
	Dir       string    `json:"dir"`   // the job's folder: spec, script, output, result
	Run       string    `json:"run"`   // the output folder the job writes ($KILN_OUT)
	Entry     string    `json:"entry"` // the caller's name for that folder (kiln's store entry)
	Submitted time.Time `json:"submitted"`
	// Submissions counts the jobs submitted for this run, requeues included.
	Submissions int `json:"submissions"`
	// Ahead: the job was queued before its node was known, and waits for
	// its spec (kiln job run -await).
	Ahead bool `json:"ahead,omitempty"`
}

func (j *Journal) path(key string) (string, error) {
	if key == "" || strings.ContainsAny(key, `/\`) || strings.HasPrefix(key, ".") {
		return "", fmt.Errorf("invalid journal key %q", key)
	}
	return filepath.Join(j.Dir, key+".json"), nil
}

// Put records job durably.
func (j *Journal) Put(job Job) error {
	p, err := j.path(job.Key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(job, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(p, append(b, '\n'), 0o644)
}

// Get returns the job journaled for key; ok is false when there is none.
// A damaged entry is an error naming the file.
func (j *Journal) Get(key string) (job Job, ok bool, err error) {
	p, err := j.path(key)
	if err != nil {
		return Job{}, false, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, err
	}
	if err := json.Unmarshal(b, &job); err != nil || job.Key != key || job.ID == "" {
		return Job{}, false, fmt.Errorf("the Slurm job journal %s is damaged; check squeue for a job named after the node, then remove the file", p)
	}
	return job, true, nil
}

// Remove forgets key's job.
func (j *Journal) Remove(key string) error {
	p, err := j.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// List returns every journaled job, sorted by key.
func (j *Journal) List() ([]Job, error) {
	des, err := os.ReadDir(j.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var jobs []Job
	for _, de := range des {
		key, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || de.IsDir() {
			continue
		}
		if job, ok, err := j.Get(key); err == nil && ok {
			jobs = append(jobs, job)
		}
	}
	slices.SortFunc(jobs, func(a, b Job) int { return strings.Compare(a.Key, b.Key) })
	return jobs, nil
}
