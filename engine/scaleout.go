package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/remotecache"
	"github.com/kilnbuild/kiln/engine/run"
	"github.com/kilnbuild/kiln/engine/slurm"
)

// cacheOptions connects to the remote cache the pipeline's cache block or
// KILN_CACHE_URL names; none when neither does. KILN_CACHE_URL replaces the
// block's url and keeps the rest of it. The signing key is
// KILN_CACHE_SIGNING_KEY's file, else the block's signing_key; with
// trusted_keys and no signing key, nothing is pushed (NotPushed says why).
func (w *Workspace) cacheOptions() (run.CacheOptions, error) {
	c := w.pipeline.Cache
	u := w.opts.CacheURL
	o := run.CacheOptions{Push: true, Pull: true}
	if c == nil {
		c = &config.Cache{}
	} else {
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
	if c.StallTimeout > 0 {
		client.Limits.Stall = c.StallTimeout
	}
	if c.MinRateSet {
		client.Limits.MinRate = c.MinRate
	}
	for _, k := range c.TrustedKeys {
		pub, err := remotecache.ParsePublicKey(k)
		if err != nil {
			return run.CacheOptions{}, err // checked when the pipeline loaded
		}
		client.Trusted = append(client.Trusted, pub)
	}
	keyFile := w.opts.CacheSigningKey
	if keyFile == "" && c.SigningKey != "" {
		keyFile = c.SigningKey
		if !filepath.IsAbs(keyFile) {
			keyFile = filepath.Join(w.pipeline.Root, keyFile)
		}
	}
	if keyFile != "" && o.Push {
		if client.Signer, err = remotecache.LoadSigningKey(keyFile); err != nil {
			return run.CacheOptions{}, err
		}
	}
	if len(client.Trusted) > 0 && client.Signer == nil {
		o.NotPushed = "trusted_keys is set and this host has no signing key (KILN_CACHE_SIGNING_KEY, or the cache block's signing_key), so no host that trusts only keys would take them"
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

// annotateCache reads the summary of the cache's record (never its file
// list) of every node that would run, so the plan says what apply would
// fetch and who signed it. A record apply would refuse (no trusted key
// signed it, its digest contradicts kiln.lock.hcl) leaves the node to be
// built, with a warning; so does a server that refuses, fails or is too
// slow.
func (w *Workspace) annotateCache(ctx context.Context, pl *plan.Plan, o run.CacheOptions) hcl.Diagnostics {
	if o.Client == nil || !o.Pull {
		return nil
	}
	todo := w.cacheCandidates(pl)
	if len(todo) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	found, errs, down := lookUpSummaries(ctx, o.Client, todo)
	var diags hcl.Diagnostics
	var refused, failed []string
	for i, d := range todo {
		if errs[i] != nil {
			var ue *remotecache.UntrustedError
			if errors.As(errs[i], &ue) {
				refused = append(refused, fmt.Sprintf("%s: %v", d.Node.Addr, errs[i]))
			} else {
				failed = append(failed, fmt.Sprintf("%s: %v", d.Node.Addr, errs[i]))
			}
			continue
		}
		rec := found[i]
		if rec == nil || rec.Digest != rec.Tree {
			continue // apply takes only results that are their folder
		}
		if m := w.decider.Mismatch(d.Node, d.Key, rec.Digest); m != nil {
			refused = append(refused, fmt.Sprintf("%s: the cache's result has digest %s, but kiln.lock.hcl records %s under the same key; apply builds it here", d.Node.Addr, human.Short(rec.Digest), human.Short(m.Locked)))
			continue
		}
		d.Action = plan.Fetch
		d.Reasons = []plan.Reason{{Kind: plan.ReasonCache, Subject: o.Client.URL(), Detail: cacheDetail(d, rec.Host)}}
		if rec.SignedBy != "" {
			d.Reasons = append(d.Reasons, plan.Reason{Kind: plan.ReasonSigned, Subject: rec.SignedBy})
		}
	}
	if len(refused) > 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Remote cache results refused", Detail: strings.Join(refused, "\n") + "\nThose nodes are built here."})
	}
	if len(failed) > 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Remote cache failed", Detail: firstLines(failed, 3) + "\nThe plan assumes those nodes build here."})
	}
	if down != nil {
		diags = append(diags, cacheDownDiag(down))
	}
	if s := o.Client.Signer; s != nil && len(o.Client.Trusted) > 0 && !slices.ContainsFunc(o.Client.Trusted, func(k remotecache.PublicKey) bool { return k.String() == s.Public().String() }) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Signing key not trusted", Detail: fmt.Sprintf("results built here are signed by %s, which the cache block's trusted_keys does not name, so no host of this pipeline pulls them; add %q to trusted_keys.", s.Name, s.Public().String())})
	}
	return diags
}

// cacheCandidates are the decisions of pl that would build a result the
// remote cache may hold.
func (w *Workspace) cacheCandidates(pl *plan.Plan) []*plan.Decision {
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
	return todo
}

// lookUpSummaries asks the cache for the record of each decision's key, a
// few at a time: found[i] or errs[i] for each, or down, the error of a
// server that cannot be asked (unreachable, too slow, refusing access),
// after which it is asked nothing more.
func lookUpSummaries(ctx context.Context, c *remotecache.Client, todo []*plan.Decision) (found []*remotecache.Record, errs []error, down error) {
	var mu sync.Mutex
	found, errs = make([]*remotecache.Record, len(todo)), make([]error, len(todo))
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
				rec, err := c.Summary(ctx, todo[i].Key)
				var ue *remotecache.UnreachableError
				var slow *remotecache.SlowError
				var se *remotecache.StatusError
				switch {
				case err == nil:
					found[i] = rec
				case errors.Is(err, remotecache.ErrNotFound):
				case errors.As(err, &ue), errors.As(err, &slow), errors.As(err, &se) && se.Auth():
					mu.Lock()
					if down == nil {
						down = err
					}
					mu.Unlock()
				default:
					errs[i] = err
				}
			}
		})
	}
	for i := range todo {
		work <- i
	}
	close(work)
	wg.Wait()
	return found, errs, down
}

// cacheDownDiag says that the cache could not be asked, and why.
func cacheDownDiag(down error) *hcl.Diagnostic {
	summary := "Remote cache unreachable"
	var slow *remotecache.SlowError
	var se *remotecache.StatusError
	switch {
	case errors.As(down, &slow):
		summary = "Remote cache too slow"
	case errors.As(down, &se):
		summary = "Remote cache refused access"
	}
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: fmt.Sprintf("%v; the plan assumes every node builds here.", down)}
}

// firstLines joins the first n of lines, and says how many more there are.
func firstLines(lines []string, n int) string {
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n(and %d more)", len(lines)-n)
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
		r := plan.Reason{Kind: plan.ReasonSlurmJob, Subject: f.job.ID, Detail: "state unknown"}
		if qerr != nil {
			r.Detail = "state unknown: " + qerr.Error()
		} else if s, ok := states[f.job.ID]; ok {
			r.Detail = s.String()
			if s.State.Final() {
				r.New = plan.SlurmJobEnded
			}
		}
		f.d.Reasons = append([]plan.Reason{r}, f.d.Reasons...)
	}
}
