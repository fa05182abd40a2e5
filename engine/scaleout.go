package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/remotecache"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/slurm"
)

// cacheOptions connects to the remote cache the pipeline's cache block or
// KILN_CACHE_URL names; none when neither does. KILN_CACHE_URL replaces the
// block's url and keeps its push and pull.
func (w *Workspace) cacheOptions() (run.CacheOptions, error) {
	c := w.pipeline.Cache
	u := w.opts.CacheURL
	o := run.CacheOptions{Push: true, Pull: true}
	if c != nil {
		o.Push, o.Pull = c.Push, c.Pull
		if u == "" {
			u = c.URL
		}
	}
	if u == "" {
		return run.CacheOptions{}, nil
	}
	client, err := remotecache.New(u, w.opts.CacheAuth)
	if err != nil {
		return run.CacheOptions{}, err
	}
	o.Client = client
	return o, nil
}

// annotate adds to a plan what only the outside world knows: which nodes
// that would run the remote cache holds a result for (they become ↓
// fetch), and which have a Slurm job that an earlier apply submitted and
// did not settle (apply adopts it), and what a dead apply left in the
// journal of local runs (annotateLeftRuns). Problems reaching the cache or
// Slurm are warnings.
func (w *Workspace) annotate(ctx context.Context, pl *plan.Plan) hcl.Diagnostics {
	var diags hcl.Diagnostics
	opts, err := w.cacheOptions()
	if err != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid remote cache", Detail: err.Error() + "."})
		return diags
	}
	diags = append(diags, w.annotateCache(ctx, pl, opts)...)
	w.annotateSlurm(ctx, pl)
	diags = append(diags, w.annotateLeftRuns(pl)...)
	return diags
}

func (w *Workspace) annotateCache(ctx context.Context, pl *plan.Plan, o run.CacheOptions) hcl.Diagnostics {
	if o.Client == nil || !o.Pull {
		return nil
	}
	var todo []*plan.Decision
	for _, d := range pl.Changes {
		switch d.Action {
		case plan.Create, plan.Rebuild, plan.Repair:
		default:
			continue
		}
		if d.Key != "" && d.Blocked == "" && run.Cacheable(d.Node) && !d.Node.Meta.AlwaysRun && !w.decider.Replace[d.Node.Addr] {
			todo = append(todo, d)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var mu sync.Mutex
	var down error
	found := make([]*remotecache.Record, len(todo))
	has := make([]bool, len(todo))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(8, len(todo)) {
		wg.Go(func() {
			for i := range work {
				mu.Lock()
				stop := down != nil
				mu.Unlock()
				if stop {
					continue
				}
				d := todo[i]
				var err error
				if d.Node.Meta.Deterministic {
					has[i], err = o.Client.Has(ctx, d.Key)
				} else {
					// The record names the host that produced it.
					found[i], err = o.Client.Lookup(ctx, d.Key)
					has[i] = err == nil
					if errors.Is(err, remotecache.ErrNotFound) {
						err = nil
					}
				}
				var ue *remotecache.UnreachableError
				if errors.As(err, &ue) {
					mu.Lock()
					down = err
					mu.Unlock()
				}
			}
		})
	}
	for i := range todo {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, d := range todo {
		if !has[i] {
			continue
		}
		host := ""
		if found[i] != nil {
			host = found[i].Host
		}
		d.Action = plan.Fetch
		d.Reasons = []plan.Reason{{Kind: plan.ReasonCache, Subject: o.Client.URL(), Detail: cacheDetail(d, host)}}
	}
	if down != nil {
		return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Remote cache unreachable", Detail: fmt.Sprintf("%v; the plan assumes every node builds here.", down)}}
	}
	return nil
}

func cacheDetail(d *plan.Decision, host string) string {
	if d.Node.Meta.Deterministic {
		return ""
	}
	if host == "" {
		host = "another host"
	}
	return "; deterministic = false: the result was produced elsewhere (" + host + "), not by a run here"
}

// annotateSlurm says, for nodes that would run on Slurm, which have a job
// in the journal that an earlier apply left: apply adopts it.
func (w *Workspace) annotateSlurm(ctx context.Context, pl *plan.Plan) {
	journal := run.SlurmJournal(w.pipeline.StateDir)
	type found struct {
		d   *plan.Decision
		job slurm.Job
	}
	var jobs []found
	var ids []string
	for _, d := range pl.Changes {
		if d.Node.Meta.Executor == "" || d.Key == "" || !d.Action.Runs() {
			continue
		}
		if j, ok, err := journal.Get(d.Key); err == nil && ok {
			jobs = append(jobs, found{d, j})
			ids = append(ids, j.ID)
		}
	}
	if len(jobs) == 0 {
		return
	}
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	states, qerr := (&slurm.Cluster{}).Query(qctx, ids)
	for _, f := range jobs {
		st := "state unknown"
		if qerr != nil {
			st = "state unknown: " + qerr.Error()
		} else if s, ok := states[f.job.ID]; ok {
			st = s.String()
		}
		f.d.Reasons = append([]plan.Reason{{Kind: plan.ReasonSlurmJob, Subject: f.job.ID, Detail: " (" + st + ")"}}, f.d.Reasons...)
	}
}
