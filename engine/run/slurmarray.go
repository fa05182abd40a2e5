package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/slurm"
)

// Instances of one for_each or count block that become ready together are
// submitted as one Slurm array job, as Nextflow's array directive does: one
// sbatch for N elements instead of N, and one queue entry the scheduler
// plans for. Each element is then a job of its own to kiln: journaled,
// watched, cancelled and adopted by its id ARRAY_INDEX, and a failed
// element fails only its instance. A resubmission after NODE_FAIL or
// PREEMPTED is a single job.
//
// Elements count against max_jobs and -jobs one by one, as Slurm's
// MaxSubmitJobs counts them: the scheduler admits at most that many
// instances, and those admitted together form the array. A per-array
// throttle (--array=...%N) is not used, because it would bound each array
// alone, not the apply's jobs.
//
// An array's folder holds one folder per element, named by its index, with
// the element's spec, result and output (--output=DIR/%a/job.out); the
// batch script runs `kiln job run DIR/$SLURM_ARRAY_TASK_ID/spec.json`.

// Batching: the scheduler starts every instance it admits at once, and
// each prepares (its key, its run folder, its spec) before it submits; the
// time that takes varies with the instance and the machine's load. So the
// apply tells the batcher which instances of a block have started
// (expect), and an array is submitted once every one of them has joined it
// or ended without a job (arraySettle later, for an instance the scheduler
// is starting just then), when it holds array_size instances, or at the
// latest arrayQuiet after the last joined and arrayWait after the first.
const (
	arraySettle = 100 * time.Millisecond
	arrayQuiet  = 2 * time.Second
	arrayWait   = 30 * time.Second
)

// arrays holds the arrays being gathered, by the shape of their request,
// and the instances started that have not joined one yet, by block.
type arrays struct {
	mu       sync.Mutex
	open     map[string]*array
	expected map[string]map[string]bool // block → instance addresses
}

// expect tells the batcher that n, an instance that may join an array,
// has started.
func (x *slurmExec) expect(n *config.Node, e *config.Executor) {
	if !joinsArrays(e, n) {
		return
	}
	block := n.Addr.Block().String()
	x.arrays.mu.Lock()
	defer x.arrays.mu.Unlock()
	if x.arrays.expected == nil {
		x.arrays.expected = map[string]map[string]bool{}
	}
	if x.arrays.expected[block] == nil {
		x.arrays.expected[block] = map[string]bool{}
	}
	x.arrays.expected[block][n.Addr.String()] = true
}

// arrived tells the batcher that n joined an array or ended without one;
// the block's open arrays are submitted soon once no instance of it is
// still on its way. Called with x.arrays.mu held.
func (x *slurmExec) arrived(n *config.Node) {
	block := n.Addr.Block().String()
	waiting := x.arrays.expected[block]
	if !waiting[n.Addr.String()] {
		return
	}
	delete(waiting, n.Addr.String())
	if len(waiting) > 0 {
		return
	}
	delete(x.arrays.expected, block)
	for _, a := range x.arrays.open {
		if a.block == block {
			a.timer.Reset(arraySettle)
		}
	}
}

// ended tells the batcher that n's run is over, whether or not it joined
// an array.
func (x *slurmExec) ended(n *config.Node) {
	x.arrays.mu.Lock()
	defer x.arrays.mu.Unlock()
	x.arrived(n)
}

// array is one array job being gathered, then submitted.
type array struct {
	block   string // the block its elements are instances of
	dir     string // the array's folder; element i's is dir/i
	req     *slurm.Request
	size    int // array_size
	members []*element
	written sync.WaitGroup // every member has written its spec
	timer   *time.Timer
	first   time.Time
	sent    bool          // submitting: no member leaves any more
	done    chan struct{} // closed once submitted or failed
	id      string
	single  string // the index of the one element submitted as a plain job
	err     error
}

// element is one instance's place in an array.
type element struct {
	index int
	gone  bool // its node was cancelled before the array was submitted
}

// arrayGroup is what instances must share to be elements of one array:
// the executor, the block, and every sbatch argument but the job's name
// and output.
func arrayGroup(r *slurmRun) string {
	req := slurmRequest(r, "")
	req.Name, req.Output = "", ""
	return r.exec.Address() + "\x00" + r.node.Addr.Block().String() + "\x00" + strings.Join(req.Args(), "\x00")
}

// joinsArrays reports whether n, run on e, is an instance whose first
// submission joins an array.
func joinsArrays(e *config.Executor, n *config.Node) bool {
	return e != nil && e.ArraySize > 1 && n.Addr.Key.Set
}

// join reserves r's element in the open array of its group, opening one
// when there is none: it returns the array and the element, whose folder
// the caller fills with its spec before it calls written (once, whatever
// happened) and awaitArray.
func (x *slurmExec) join(r *slurmRun) (*array, *element, error) {
	group := arrayGroup(r)
	x.arrays.mu.Lock()
	defer x.arrays.mu.Unlock()
	if x.arrays.open == nil {
		x.arrays.open = map[string]*array{}
	}
	a := x.arrays.open[group]
	if a == nil {
		dir := filepath.Join(x.shared(r.exec), r.node.Addr.Block().FileName()+"-array-"+strconv.FormatInt(time.Now().UnixNano(), 36))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("the Slurm array folder: %w", err)
		}
		req := slurmRequest(r, dir)
		req.Name = r.node.Addr.Block().String()
		req.Output = filepath.Join(dir, "%a", "job.out")
		a = &array{block: r.node.Addr.Block().String(), dir: dir, req: req, size: r.exec.ArraySize, first: time.Now(), done: make(chan struct{})}
		x.arrays.open[group] = a
	}
	m := &element{index: len(a.members)}
	if err := os.MkdirAll(filepath.Join(a.dir, strconv.Itoa(m.index)), 0o755); err != nil {
		return nil, nil, fmt.Errorf("the Slurm array element's folder: %w", err)
	}
	a.members = append(a.members, m)
	a.written.Add(1)
	wait := min(arrayQuiet, max(0, arrayWait-time.Since(a.first)))
	if len(x.arrays.expected[a.block]) <= 1 {
		wait = min(wait, arraySettle) // no other instance is on its way
	}
	switch {
	case len(a.members) >= a.size:
		delete(x.arrays.open, group)
		if a.timer != nil {
			a.timer.Stop()
		}
		go x.submitArray(a, r)
	case a.timer == nil:
		a.timer = time.AfterFunc(wait, func() { x.closeArray(group, a, r) })
	default:
		a.timer.Reset(wait)
	}
	x.arrived(r.node)
	return a, m, nil
}

// closeArray submits a once no instance joined it for arrayQuiet, unless
// it was submitted already for being full.
func (x *slurmExec) closeArray(group string, a *array, r *slurmRun) {
	x.arrays.mu.Lock()
	if x.arrays.open[group] != a {
		x.arrays.mu.Unlock()
		return
	}
	delete(x.arrays.open, group)
	x.arrays.mu.Unlock()
	x.submitArray(a, r)
}

// submitArray submits the array's elements whose nodes still want them,
// once each has written its spec.
func (x *slurmExec) submitArray(a *array, r *slurmRun) {
	defer close(a.done)
	a.written.Wait()
	x.arrays.mu.Lock()
	a.sent = true
	var indices []int
	for _, m := range a.members {
		if !m.gone {
			indices = append(indices, m.index)
		}
	}
	x.arrays.mu.Unlock()
	if len(indices) == 0 {
		return
	}
	a.req.Command = []string{x.kiln(r.exec), "job", "run", filepath.Join(a.dir, "%a", "spec.json")}
	if len(indices) == 1 {
		// One instance alone is a job of its own.
		a.single = strconv.Itoa(indices[0])
		a.req.Output = strings.ReplaceAll(a.req.Output, "%a", a.single)
		a.req.Command[3] = strings.ReplaceAll(a.req.Command[3], "%a", a.single)
	} else {
		a.req.Array = indices
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a.id, a.err = x.opts.Cluster.Submit(ctx, a.req, filepath.Join(a.dir, "array.sh"))
}

// written tells a that m's spec is in place, or, with a non-nil err, that
// m leaves the array.
func (x *slurmExec) written(a *array, m *element, err error) {
	if err != nil {
		x.arrays.mu.Lock()
		m.gone = true
		x.arrays.mu.Unlock()
	}
	a.written.Done()
}

// awaitArray waits until a is submitted and returns m's job id. When ctx
// ends before the array was submitted, m leaves it.
func (x *slurmExec) awaitArray(ctx context.Context, a *array, m *element) (string, error) {
	select {
	case <-a.done:
	case <-ctx.Done():
		x.arrays.mu.Lock()
		if !a.sent {
			m.gone = true
			x.arrays.mu.Unlock()
			return "", context.Cause(ctx)
		}
		x.arrays.mu.Unlock()
		<-a.done // moments away: sbatch has been called
	}
	if a.err != nil {
		return "", fmt.Errorf("submitting the Slurm array job: %w", a.err)
	}
	if a.single != "" {
		return a.id, nil
	}
	return slurm.ElementID(a.id, m.index), nil
}
