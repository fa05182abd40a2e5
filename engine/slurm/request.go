package slurm

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/pool"
)

// Request is one batch job.
type Request struct {
	Name          string           // --job-name: kiln uses the node's address
	Partition     string           // --partition
	Account       string           // --account
	QOS           string           // --qos
	GRES          map[string]int64 // --gres=NAME:N,... per node
	CPUsPerTask   int              // --cpus-per-task
	Mem           string           // --mem, as sbatch takes it: "64G"
	Time          time.Duration    // --time, rounded up to whole minutes
	Nodes         int              // --nodes
	NTasksPerNode int              // --ntasks-per-node
	Chdir         string           // --chdir: the job's working folder
	Output        string           // --output: stdout and stderr of the job
	Flags         []string         // further sbatch flags, verbatim, after kiln's
	// Array makes the job an array of the elements of these indices
	// (--array=0-3,5); every %a in Output and Command stands for the
	// element's index.
	Array []int
	// After are the jobs this one starts after, once each has completed
	// successfully (--dependency=afterok:...).
	After   []string
	Command []string // what the batch script execs
}

// Args are the sbatch arguments before the script path.
func (r *Request) Args() []string {
	args := []string{"--parsable", "--no-requeue", "--export=NONE"}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag+"="+v)
		}
	}
	add("--job-name", r.Name)
	add("--output", r.Output)
	add("--chdir", r.Chdir)
	if len(r.Array) > 0 {
		add("--array", pool.IDs(r.Array).String()) // "0-3,5"
	}
	if len(r.After) > 0 {
		add("--dependency", "afterok:"+strings.Join(r.After, ":"))
	}
	add("--partition", r.Partition)
	add("--account", r.Account)
	add("--qos", r.QOS)
	if r.Nodes > 0 {
		add("--nodes", strconv.Itoa(r.Nodes))
	}
	if r.NTasksPerNode > 0 {
		add("--ntasks-per-node", strconv.Itoa(r.NTasksPerNode))
	}
	if r.CPUsPerTask > 0 {
		add("--cpus-per-task", strconv.Itoa(r.CPUsPerTask))
	}
	add("--mem", r.Mem)
	if g := r.gres(); g != "" {
		add("--gres", g)
	}
	if r.Time > 0 {
		add("--time", strconv.FormatInt(int64((r.Time+time.Minute-1)/time.Minute), 10))
	}
	return append(args, r.Flags...)
}

func (r *Request) gres() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(r.GRES)) {
		if n := r.GRES[name]; n > 0 {
			parts = append(parts, name+":"+strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(parts, ",")
}

// Script is the batch script: a shell that execs Command. The sbatch
// options are passed on the command line (Args), not as #SBATCH lines, so
// that what kiln asked for is visible in one place.
func (r *Request) Script() string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Written by kiln: the job runs one node; see the spec it names.\n")
	b.WriteString("exec")
	for _, a := range r.Command {
		b.WriteString(" ")
		if len(r.Array) == 0 {
			b.WriteString(shellQuote(a))
			continue
		}
		parts := strings.Split(a, "%a")
		for i, part := range parts {
			if i > 0 {
				b.WriteString(`"$SLURM_ARRAY_TASK_ID"`)
			}
			if part != "" || len(parts) == 1 {
				b.WriteString(shellQuote(part)) // an empty argument stays ''
			}
		}
	}
	b.WriteString("\n")
	return b.String()
}

// Check reports what sbatch would refuse or misread.
func (r *Request) Check() error {
	if len(r.Command) == 0 {
		return fmt.Errorf("the job has no command")
	}
	for i, x := range r.Array {
		if x < 0 || i > 0 && x <= r.Array[i-1] {
			return fmt.Errorf("array indices %v are not increasing from 0 up", r.Array)
		}
	}
	for _, id := range r.After {
		if id == "" || strings.ContainsAny(id, ":, \n") {
			return fmt.Errorf("invalid job id %q to start after", id)
		}
	}
	if strings.ContainsAny(r.Name, "\n") {
		return fmt.Errorf("job name %q holds a newline", r.Name)
	}
	for name, n := range r.GRES {
		if n < 0 || name == "" || strings.ContainsAny(name, ":,= ") {
			return fmt.Errorf("invalid gres %s:%d", name, n)
		}
	}
	return nil
}

// shellQuote quotes s for /bin/sh when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+=:@%,", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
