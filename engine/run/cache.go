package run

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/remotecache"
	"github.com/kilnbuild/kiln/engine/run/job"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// CacheOptions connect an apply to a remote cache.
type CacheOptions struct {
	Client     *remotecache.Client
	Push, Pull bool
	// NotPushed, when set, says why results built here are not pushed
	// although Push would be (trusted_keys, and no signing key here); it
	// is noted once, when the first result that would go is built.
	NotPushed string
}

// AttrCacheSigner, in the record of a result pulled from a remote cache,
// names the trusted key that signed the cache's record.
const AttrCacheSigner = "kiln.cache.signed_by"

// Cacheable reports whether a node's results may go through a remote
// cache: its kind is shareable (never a service, host or toolchain) and
// the node does not say cache = false.
func Cacheable(n *config.Node) bool {
	return kind.IsShareable(n.Block.Kind) && !n.Meta.NoCache
}

// remoteCache is an apply's use of a remote cache: pulls before a node
// would run, pushes in the background after it built. Once the server
// could not be reached, or was too slow, it is not asked again in this
// apply; once it refused a pull or a push (credentials, a record it does
// not take), that direction is not tried again.
type remoteCache struct {
	opts    CacheOptions
	notes   func(a addr.Node, msg string)
	uploads Uploads // shows the pushes; may be nil

	mu             sync.Mutex
	down           bool
	noPull, noPush bool
	toldNotPushed  bool

	pushing sync.WaitGroup
	slots   chan struct{} // bounds the pushes in flight
}

func newRemoteCache(o CacheOptions, notes func(addr.Node, string)) *remoteCache {
	if o.Client == nil {
		return nil
	}
	return &remoteCache{opts: o, notes: notes, slots: make(chan struct{}, 2)}
}

// unreachable notes, once per apply, that the server did not answer or
// answered too slowly.
func (c *remoteCache) unreachable(a addr.Node, err error) {
	c.mu.Lock()
	first := !c.down
	c.down = true
	c.mu.Unlock()
	if !first {
		return
	}
	msg := err.Error()
	if ue := (*remotecache.UnreachableError)(nil); !errors.As(err, &ue) {
		msg = "remote cache: " + msg // an UnreachableError names the cache itself
	}
	c.notes(a, msg+"; building locally, and not asking it again in this apply")
}

// refused notes, once per direction, that the server refused a pull or a
// push; that direction is not tried again in this apply.
func (c *remoteCache) refused(a addr.Node, push bool, err error) {
	c.mu.Lock()
	flag := &c.noPull
	if push {
		flag = &c.noPush
	}
	first := !*flag
	*flag = true
	c.mu.Unlock()
	if !first {
		return
	}
	if push {
		c.notes(a, fmt.Sprintf("remote cache: not pushed: %v; not pushing again in this apply", err))
		return
	}
	c.notes(a, fmt.Sprintf("remote cache: %v; building locally, and not asking it again in this apply", err))
}

// failed sorts an error of the server: unreachable or slow, refused
// (an answer that will not change within this apply), or just noted.
func (c *remoteCache) failed(a addr.Node, push bool, err error) {
	var ue *remotecache.UnreachableError
	var slow *remotecache.SlowError
	var se *remotecache.StatusError
	switch {
	case errors.As(err, &ue), errors.As(err, &slow):
		c.unreachable(a, err)
	case errors.As(err, &se) && se.Code >= 400 && se.Code < 500 && se.Code != http.StatusNotFound:
		c.refused(a, push, err)
	case push:
		c.notes(a, fmt.Sprintf("remote cache: not pushed: %v", err))
	default:
		c.notes(a, fmt.Sprintf("remote cache: %v; building locally", err))
	}
}

func (c *remoteCache) usable(push bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if push {
		return !c.down && !c.noPush
	}
	return !c.down && !c.noPull
}

// lookup asks the cache for a result of key. A miss, an unusable record
// (unsigned or signed by no trusted key, invalid, too large) and a server
// that failed all return nil; only the last two are noted.
func (c *remoteCache) lookup(ctx context.Context, n *config.Node, key string) *remotecache.Record {
	if c == nil || !c.opts.Pull || !c.usable(false) || !Cacheable(n) {
		return nil
	}
	rec, err := c.opts.Client.Lookup(ctx, key)
	switch {
	case err == nil:
	case errors.Is(err, remotecache.ErrNotFound):
		return nil
	default:
		if ctx.Err() == nil {
			c.failed(n.Addr, false, err)
		}
		return nil
	}
	if rec.Digest != rec.Tree {
		// A result with in-place outputs or a kind's own digest holds more
		// than its tree: kiln never pushes one, and never takes one.
		c.notes(n.Addr, "remote cache: the record of "+human.Short(key)+" describes more than a folder; building locally")
		return nil
	}
	return rec
}

// fetch downloads rec into the run folder dir; on error dir is to be
// discarded. noted is true when the error was noted already (the server
// is unreachable or too slow, and not asked again).
func (c *remoteCache) fetch(ctx context.Context, n *config.Node, rec *remotecache.Record, dir string, progress func(done int64)) (noted bool, err error) {
	_, err = c.opts.Client.Fetch(ctx, rec, dir, progress)
	var ue *remotecache.UnreachableError
	var slow *remotecache.SlowError
	if errors.As(err, &ue) || errors.As(err, &slow) {
		c.unreachable(n.Addr, err)
		return true, err
	}
	return false, err
}

// push uploads a built result in the background, when the node's results
// are shareable and the result is exactly its run folder. A failed push is
// noted and never fails the apply.
func (c *remoteCache) push(n *config.Node, rec *state.Record, dir string, stat *hash.StatCache) {
	if c == nil || !c.opts.Push || !c.usable(true) || !Cacheable(n) || len(rec.Outputs) > 0 || rec.Attrs[plan.AttrDigestBy] == "kind" {
		return
	}
	if c.opts.NotPushed != "" {
		c.mu.Lock()
		first := !c.toldNotPushed
		c.toldNotPushed = true
		c.mu.Unlock()
		if first {
			c.notes(n.Addr, "remote cache: results built here are not pushed: "+c.opts.NotPushed)
		}
		return
	}
	c.pushing.Add(1)
	go func() {
		defer c.pushing.Done()
		c.slots <- struct{}{}
		defer func() { <-c.slots }()
		if !c.usable(true) {
			return
		}
		entries, err := hash.Manifest(dir, stat)
		if err != nil {
			c.notes(n.Addr, fmt.Sprintf("remote cache: not pushed: %v", err))
			return
		}
		tree := hash.EntriesDigest(entries).String()
		if tree != rec.Digest {
			c.notes(n.Addr, fmt.Sprintf("remote cache: not pushed: the result changed since it was recorded (%s, recorded %s)", human.Short(tree), human.Short(rec.Digest)))
			return
		}
		r := &remotecache.Record{
			Format: remotecache.Format, Key: rec.Key, Digest: rec.Digest, Tree: tree, Kind: rec.Kind, Addr: rec.Addr,
			Host: rec.Host, Deterministic: n.Meta.Deterministic, Built: time.Now().UTC(), Attrs: rec.Attrs,
			Files: remotecache.FilesOf(entries),
		}
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Hour)
		defer cancel()
		var progress func(done, total int64)
		if u := c.uploads; u != nil {
			address := n.Addr.String()
			defer u.UploadDone(address)
			progress = func(done, total int64) { u.Upload(address, done, total) }
		}
		if _, err := c.opts.Client.Push(ctx, dir, r, progress); err != nil {
			c.failed(n.Addr, true, err)
		}
	}()
}

// wait waits for the pushes in flight.
func (c *remoteCache) wait() {
	if c != nil {
		c.pushing.Wait()
	}
}

// fetch pulls the node's result from the remote cache instead of building
// it, when the node would run and the cache holds a result with its key: in
// a fresh run folder, every file verified, then published like a build. ok
// is false when the node is to be built (a miss, or a pull that failed:
// its folder is removed, never linked).
func (a *Applier) fetch(ctx context.Context, dec *plan.Decision) (NodeResult, bool) {
	n := dec.Node
	res := NodeResult{Addr: n.Addr, Action: plan.Fetch}
	switch dec.Action {
	case plan.Create, plan.Rebuild, plan.Repair:
	default:
		return res, false
	}
	d := a.Decider
	if a.cache == nil || n.Meta.AlwaysRun || d.Replace[n.Addr] || dec.Key == "" {
		return res, false
	}
	rec := a.cache.lookup(ctx, n, dec.Key)
	if rec == nil {
		return res, false
	}
	if m := d.Mismatch(n, dec.Key, rec.Digest); m != nil {
		// As a local build that does not reproduce the lock would be, but
		// a result from elsewhere is never taken over the lock: built here,
		// where it is checked again.
		a.note(n.Addr, fmt.Sprintf("remote cache: its result has digest %s, but kiln.lock.hcl records %s under the same key; not linked, building here", human.Short(rec.Digest), human.Short(m.Locked)))
		return res, false
	}
	st := d.Store
	unlock := st.LockKey(dec.Key)
	defer unlock()
	if d.Records.Stored(dec.Key) != nil {
		return res, false // the build restores it
	}
	// Journaled before its folder is made, as a build is: should kiln die
	// while it downloads, the next apply removes the unfinished folder.
	var run *state.Run
	entry, dir, err := st.NewRunAfter(dec.Key, func(entry string) error {
		var err error
		run, err = a.Runs.Begin(n.Addr.String(), entry, false)
		return err
	})
	if err != nil {
		if run != nil {
			run.End() // journaled, but no folder was made
		}
		return res, false
	}
	defer run.End()
	host := rec.Host
	reasons := []plan.Reason{{Kind: plan.ReasonCache, Subject: a.cache.opts.Client.URL(), Detail: producedElsewhere(n, host)}}
	if rec.SignedBy != "" {
		reasons = append(reasons, plan.Reason{Kind: plan.ReasonSigned, Subject: rec.SignedBy})
	}
	res.Reasons = reasons
	a.Options.Hooks.Running(n.Addr, plan.Fetch, reasons)
	var total int64
	for _, f := range rec.Files {
		total += f.Size
	}
	progress := func(int64) {}
	if h, ok := a.Options.Hooks.(ByteCounter); ok {
		progress = func(done int64) { h.Bytes(n.Addr.String(), done, total) }
	}
	start := time.Now()
	noted, err := a.cache.fetch(ctx, n, rec, dir, progress)
	if err == nil {
		remote := &job.Result{OK: true, Digest: rec.Digest, Attrs: a.pulledAttrs(dec, rec), Host: host}
		err = a.publish(dec, entry, dir, &built{remote: remote, cached: true}, start, time.Since(start), "", nil, nil)
	}
	res.Duration = time.Since(start)
	if err != nil {
		_ = st.RemoveRun(entry)
		if ctx.Err() != nil {
			res.Outcome, res.Err = Cancelled, err
			return res, true
		}
		if !noted {
			a.note(n.Addr, fmt.Sprintf("remote cache: %v; building locally", err))
		}
		return res, false
	}
	res.Outcome = Fetched
	return res, true
}

// producedElsewhere is what a plan says of a pulled result that another
// run of a non-deterministic node made.
func producedElsewhere(n *config.Node, host string) string {
	if n.Meta.Deterministic {
		return ""
	}
	if host == "" {
		host = "another host"
	}
	return "; deterministic = false: the result was produced elsewhere (" + host + "), not by a run here"
}

// pulledAttrs is what the state keeps of the attributes of a pulled
// record. Nothing the record says beyond its files and digest is taken as
// it is: kiln's own attributes (kiln.digest_by, which turns off the drift
// check; kiln.temp; an executor's) and the kind's are dropped; an export is
// taken only where the node's kind declares it and leaves it unknown until
// built, with a value of its type, so a record can never move out or
// digest; the pins are the lock's, which the key was made with; and the
// trusted key that signed the record is named.
func (a *Applier) pulledAttrs(dec *plan.Decision, rec *remotecache.Record) map[string]string {
	attrs := map[string]string{}
	if dec.Kind != nil && dec.KindNode != nil {
		for name, v := range dec.Kind.Exports(dec.KindNode) {
			raw, ok := rec.Attrs[plan.AttrExportPrefix+name]
			if !ok || v.IsKnown() || name == "out" || name == "digest" || name == "blocked" {
				continue
			}
			var got ctyjson.SimpleJSONValue
			if got.UnmarshalJSON([]byte(raw)) == nil && got.Value.IsWhollyKnown() && (v.Type() == cty.DynamicPseudoType || got.Value.Type().Equals(v.Type())) {
				attrs[plan.AttrExportPrefix+name] = raw
			}
		}
	}
	for name, v := range a.Decider.Pins[dec.Node.Addr.String()] {
		attrs[plan.AttrPinPrefix+name] = v
	}
	if rec.SignedBy != "" {
		attrs[AttrCacheSigner] = rec.SignedBy
	}
	return attrs
}
