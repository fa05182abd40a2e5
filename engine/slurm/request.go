package slurm

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
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
	Command       []string         // what the batch script execs
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
		b.WriteString(shellQuote(a))
	}
	b.WriteString("\n")
	return b.String()
}

// Check reports what sbatch would refuse or misread.
func (r *Request) Check() error {
	if len(r.Command) == 0 {
		return fmt.Errorf("the job has no command")
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
