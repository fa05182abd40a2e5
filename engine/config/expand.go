package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/gocty"
)

// maxInstances bounds count and for_each: a pipeline is a plan a person
// reviews, and a typo like count = 1e9 must fail fast, not exhaust memory.
// (A variable only so that the fuzz test can explore with small pipelines.)
var maxInstances = 1_000_000

// expand turns blocks into node instances, resolves their dependencies and
// evaluates their meta-arguments.
func (p *Pipeline) expand() hcl.Diagnostics {
	var diags hcl.Diagnostics
	p.instances = make(map[addr.Node][]addr.Node, len(p.Blocks))
	p.blockOf = make(map[addr.Node]*Block, len(p.Blocks))
	p.Nodes = slices.Grow(p.Nodes, len(p.Blocks))
	for _, b := range p.Blocks {
		p.blockOf[b.Addr()] = b
	}
	for _, b := range p.Blocks {
		b.dynamic = p.dynamicSources(b)
	}
	p.resolveFollowers()
	static := p.staticContext()
	listed := map[string][]eachElement{}
	// A static follower's instances are those of the block it follows,
	// made first.
	made := make(map[*Block]bool, len(p.Blocks))
	var instantiate func(b *Block)
	instantiate = func(b *Block) {
		if made[b] {
			return
		}
		made[b] = true
		if b.follows != nil && b.dynamic == nil {
			instantiate(p.blockOf[*b.follows])
		}
		nodes, d := p.instancesOf(b, static, listed)
		diags = append(diags, d...)
		if len(nodes) > 0 {
			addrs := make([]addr.Node, len(nodes))
			for i, n := range nodes {
				addrs[i] = n.Addr
			}
			p.instances[b.Addr()] = addrs // made once: made[b]
		}
		p.Nodes = append(p.Nodes, nodes...)
	}
	for _, b := range p.Blocks {
		instantiate(b)
	}
	if diags.HasErrors() {
		return dedupe(diags) // a local's error, once for each block it expands
	}
	p.sortNodes()
	// Each instance's dependencies and meta-arguments are its own: they
	// are resolved in parallel, their diagnostics kept in order.
	nodeDiags := make([]hcl.Diagnostics, len(p.Nodes))
	parallel(len(p.Nodes), func(i int) {
		n := p.Nodes[i]
		d := p.resolveDeps(n, static)
		if !n.Placeholder() {
			d = append(d, p.evalMeta(n)...)
		}
		nodeDiags[i] = d
	})
	for _, d := range nodeDiags {
		diags = append(diags, d...)
	}
	return dedupe(diags) // a local's error, once for each instance that reads it
}

// instancesOf makes the instances of b, its for_each or count evaluated
// in static; listed holds the elements of each value a for_each named
// (valueName), for the next block that names it.
func (p *Pipeline) instancesOf(b *Block, static *hcl.EvalContext, listed map[string][]eachElement) ([]*Node, hcl.Diagnostics) {
	base := addr.Node{Kind: b.Kind.Name(), Name: b.Name}
	switch {
	case b.dynamic != nil:
		a := base
		a.Key = addr.AllKey()
		return []*Node{{Addr: a, Block: b, CountIdx: -1, DeclRange: b.DeclRange, Dynamic: &Dynamic{After: b.dynamic}}}, nil
	case b.follows != nil:
		return p.followerInstances(b), nil
	case b.ForEach != nil:
		name := valueName(b.ForEach)
		elems, ok := listed[name]
		if !ok || name == "" {
			v, diags := p.staticEval(b.ForEach, static)
			if diags.HasErrors() {
				return nil, diags
			}
			elems, diags = forEachElements(b, v, maxInstances, "for_each must be known when the pipeline loads: use variables, locals and literal values, or the results of other nodes through fileset, glob_wildcards, listfile or file.")
			if diags.HasErrors() {
				return nil, diags
			}
			if name != "" {
				listed[name] = elems
			}
		}
		return eachInstances(b, elems), nil
	case b.Count != nil:
		v, diags := p.staticEval(b.Count, static)
		if diags.HasErrors() {
			return nil, diags
		}
		return p.countInstances(b, v, maxInstances)
	default:
		return []*Node{{Addr: base, Block: b, CountIdx: -1, DeclRange: b.DeclRange}}, nil
	}
}

// valueName is the name e gives a value of the static context when it is
// nothing else (local.ids, var.samples), and "" otherwise. Blocks whose
// for_each names the same value share its listing: listing a set sorts
// it, which for 250,000 strings takes a second.
func valueName(e hcl.Expression) string {
	t, ok := e.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(t.Traversal) < 2 {
		return ""
	}
	name := t.Traversal.RootName()
	for i := 1; i < len(t.Traversal); i++ {
		step, ok := attrStep(t.Traversal, i)
		if !ok {
			return ""
		}
		name += "." + step
	}
	return name
}

// An eachElement is the each.key and each.value of one for_each instance.
type eachElement struct{ key, value cty.Value }

// forEachInstances makes one instance per element of a for_each value, at
// most limit of them; unknown is the error's detail when v is not known.
func (p *Pipeline) forEachInstances(b *Block, v cty.Value, limit int, unknown string) ([]*Node, hcl.Diagnostics) {
	elems, diags := forEachElements(b, v, limit, unknown)
	if diags.HasErrors() {
		return nil, diags
	}
	return eachInstances(b, elems), nil
}

// forEachElements lists the elements of b's for_each value v, at most
// limit of them; unknown is the error's detail when v is not known. The
// elements are listed once: each listing of a set sorts it.
func forEachElements(b *Block, v cty.Value, limit int, unknown string) ([]eachElement, hcl.Diagnostics) {
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument", Detail: detail, Subject: b.ForEach.Range().Ptr()}}
	}
	const sensitive = "for_each must not use sensitive values (read with env() or from a sensitive variable): instance keys appear in addresses, plans and state."
	if !v.IsKnown() {
		return nil, bad(unknown)
	}
	if v.IsNull() {
		return nil, bad("for_each must not be null.")
	}
	if v.IsMarked() {
		return nil, bad(sensitive)
	}
	t := v.Type()
	stringSet := t.IsSetType() && (t.ElementType() == cty.String || t.ElementType() == cty.DynamicPseudoType)
	if !t.IsMapType() && !t.IsObjectType() && !stringSet {
		return nil, bad(fmt.Sprintf("for_each takes a map, an object or a set of strings; this is a %s. Wrap a list in toset(...).", t.FriendlyName()))
	}
	if n := v.LengthInt(); n > limit {
		return nil, bad(fmt.Sprintf("for_each has %s elements, more than the limit of %s instances of one block%s.", thousands(n), thousands(limit), limitHint(b)))
	}
	elems := make([]eachElement, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		if stringSet {
			k = val
		}
		elems = append(elems, eachElement{k, val})
	}
	for _, e := range elems {
		if !e.value.IsWhollyKnown() {
			return nil, bad(unknown)
		}
	}
	for _, e := range elems {
		if e.value.ContainsMarked() {
			return nil, bad(sensitive)
		}
	}
	return elems, nil
}

// eachInstances makes one instance of b per element.
func eachInstances(b *Block, elems []eachElement) []*Node {
	base := b.Addr()
	nodes := make([]*Node, len(elems))
	for i, e := range elems {
		a := base
		a.Key = addr.StringKey(e.key.AsString())
		nodes[i] = &Node{Addr: a, Block: b, Each: &EachValue{Key: e.key, Value: e.value}, CountIdx: -1, DeclRange: b.DeclRange}
	}
	return nodes
}

// countInstances makes count instances, at most limit.
func (p *Pipeline) countInstances(b *Block, v cty.Value, limit int) ([]*Node, hcl.Diagnostics) {
	var n int
	if v.ContainsMarked() {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid count argument", Detail: "count must not use sensitive values.", Subject: b.Count.Range().Ptr()}}
	}
	if err := gocty.FromCtyValue(v, &n); err != nil || n < 0 || n > limit {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid count argument", Detail: fmt.Sprintf("count must be a whole number from 0 to %s, known when the pipeline loads or from the results of other nodes%s.", thousands(limit), limitHint(b)), Subject: b.Count.Range().Ptr()}}
	}
	nodes := make([]*Node, n)
	for i := range nodes {
		a := b.Addr()
		a.Key = addr.IntKey(i)
		nodes[i] = &Node{Addr: a, Block: b, CountIdx: i, DeclRange: b.DeclRange}
	}
	return nodes, nil
}

// limitHint says how to raise the limit of a dynamic block's instances.
func limitHint(b *Block) string {
	if b.dynamic == nil {
		return ""
	}
	return " (KILN_MAX_INSTANCES=N raises it)"
}

// thousands writes n with commas: 1,000,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// staticContext evaluates expressions that must be known at load time.
func (p *Pipeline) staticContext() *hcl.EvalContext {
	ctx, _ := p.evalContext(nil, staticValues{p}, "", newReads())
	locals := map[string]cty.Value{}
	for _, name := range slices.Sorted(maps.Keys(p.Locals)) {
		if len(p.Locals[name].nodes) > 0 {
			continue
		}
		b := &Block{locals: []string{name}}
		v, d := p.localValues(b, staticValues{p}, newReads())
		if !d.HasErrors() {
			locals[name] = v.GetAttr(name)
		}
	}
	ctx.Variables["local"] = cty.ObjectVal(locals)
	return ctx
}

// staticEval evaluates e in static, the static context. A local e reads that
// fails to evaluate is left out of that context, so e's error would only
// say that local has no such attribute: the local's own error is given
// instead (range(2000) generating more than 1024 values).
func (p *Pipeline) staticEval(e hcl.Expression, static *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, diags := e.Value(static)
	if !diags.HasErrors() {
		return v, diags
	}
	var own hcl.Diagnostics
	for _, t := range variablesOf(e) {
		name, ok := attrStep(t, 1)
		if l := p.Locals[name]; t.RootName() != "local" || !ok || l == nil || len(l.nodes) > 0 {
			continue
		}
		if _, d := p.localValues(&Block{locals: []string{name}}, staticValues{p}, newReads()); d.HasErrors() {
			own = append(own, d...)
		}
	}
	if own.HasErrors() {
		return v, own
	}
	return v, diags
}

// resolveDeps turns the block's references into instance dependencies. A
// reference with an index known at load time names one instance; static is
// the context such an index is evaluated in, before each and count.
func (p *Pipeline) resolveDeps(n *Node, static *hcl.EvalContext) hcl.Diagnostics {
	r := &depResolver{p: p, n: n, static: static}
	for _, ref := range n.Block.refs {
		if (n.Dynamic != nil || n.Block.follows != nil) && !n.Placeholder() && n.Block.decides(ref.rng) {
			continue // an instance takes its key and value from there, not a digest
		}
		// An index not known at load time may name another instance of
		// the same block (a chain of instances); one that is known, or no
		// index at all, names the node itself or its whole block.
		t := r.resolve(ref.target, ref.index)
		if (ref.index == nil || t.Key.Set) && r.self(t, ref.rng, "refers to itself") {
			continue
		}
		r.add(t, ref.rng)
	}
	if src, ok := n.followed(); ok && n.Block.readsEach {
		r.add(src, n.Block.ForEach.Range()) // each.value is that instance's
	}
	r.dependsOn()
	r.placement()
	for _, a := range r.set.list {
		if a != n.Addr {
			n.Deps = append(n.Deps, a)
		}
	}
	sort.Slice(n.Deps, func(i, j int) bool { return n.Deps[i].Less(n.Deps[j]) })
	for _, ref := range n.Block.refs {
		if blk := ref.target.Block(); !r.whole.has(blk) && !slices.Contains(n.partial, blk) {
			n.partial = append(n.partial, blk)
		}
	}
	return r.diags
}

// depResolver gathers the nodes one node depends on.
type depResolver struct {
	p      *Pipeline
	n      *Node
	static *hcl.EvalContext
	ictx   *hcl.EvalContext // the instance's context, made when an index needs it
	set    nodeSet          // the nodes depended on
	whole  nodeSet          // blocks referenced as a whole
	diags  hcl.Diagnostics
}

// resolve is the instance target[index] names, or target when the index
// is not known at load time.
func (r *depResolver) resolve(target addr.Node, index hcl.Expression) addr.Node {
	if index == nil {
		return target
	}
	if r.ictx == nil {
		r.ictx = instanceContext(r.static, r.n)
	}
	if t, ok := r.p.instanceKey(r.ictx, target, index); ok {
		return t
	}
	return target
}

// self refuses a reference of the node to itself.
func (r *depResolver) self(target addr.Node, rng hcl.Range, what string) bool {
	n := r.n
	if target != n.Addr && (target.Key.Set || target != n.Addr.Block()) {
		return false
	}
	r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Self-reference",
		Detail: fmt.Sprintf("%s %s: a node cannot wait for its own result (a cycle of one). Its own output folder is self.out.", n.Addr, what), Subject: rng.Ptr()})
	return true
}

// add depends on target: one instance, or every instance of a block.
func (r *depResolver) add(target addr.Node, rng hcl.Range) {
	if target.Key.Set {
		if r.p.Node(target) == nil {
			r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Reference to undeclared instance",
				Detail: fmt.Sprintf("%s has no instance %s.", target.Block(), target.Key), Subject: rng.Ptr()})
			return
		}
		r.set.add(target)
		return
	}
	r.whole.add(target)
	insts, known := r.p.blockInstances(target)
	if !known {
		insts = r.p.instances[target] // the placeholder
	}
	for _, inst := range insts {
		r.set.add(inst)
	}
}

// dependsOn adds the nodes depends_on lists.
func (r *depResolver) dependsOn() {
	a, ok := r.n.Block.meta["depends_on"]
	if !ok {
		return
	}
	exprs, d := hcl.ExprList(a.Expr)
	r.diags = append(r.diags, d...)
	for _, e := range exprs {
		target, index, ok := r.p.dependsOnTarget(e)
		if !ok {
			r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid depends_on", Detail: "depends_on lists node addresses, like [service.sandbox, exec.prepare, exec.map[each.key]].", Subject: e.Range().Ptr()})
			continue
		}
		target = r.resolve(target, index)
		if (index == nil || target.Key.Set) && r.self(target, e.Range(), "depends on itself") {
			continue
		}
		r.n.Meta.DependsOn = append(r.n.Meta.DependsOn, target)
		r.add(target, e.Range())
	}
}

// placement reads the host and toolchain a node names.
func (r *depResolver) placement() {
	for _, name := range []string{"host", "toolchain"} {
		a, ok := r.n.Block.meta[name]
		if !ok {
			continue
		}
		t, d := hcl.AbsTraversalForExpr(a.Expr)
		target, ok := r.p.traversalNode(t)
		if d.HasErrors() || !ok || target.Kind != name {
			r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name, Detail: fmt.Sprintf("%s names a %s node, like %s = %s.NAME.", name, name, name, name), Subject: a.Expr.Range().Ptr()})
			continue
		}
		if name == "host" {
			r.n.Meta.Host = &target
		} else {
			r.n.Meta.Toolchain = &target
		}
	}
}

// dependsOnTarget reads one depends_on entry: a node address, possibly
// indexed by a literal key or by an index known at load time.
func (p *Pipeline) dependsOnTarget(e hcl.Expression) (addr.Node, hcl.Expression, bool) {
	if t, d := hcl.AbsTraversalForExpr(e); !d.HasErrors() && len(t) >= 2 {
		target, ok := p.traversalNode(t)
		return target, nil, ok
	}
	ix, ok := e.(*hclsyntax.IndexExpr)
	if !ok {
		return addr.Node{}, nil, false
	}
	t, d := hcl.AbsTraversalForExpr(ix.Collection)
	if d.HasErrors() || len(t) != 2 || !p.loadTimeKnown(ix.Key) {
		return addr.Node{}, nil, false
	}
	target, ok := p.traversalNode(t)
	return target, ix.Key, ok
}

func (p *Pipeline) traversalNode(t hcl.Traversal) (addr.Node, bool) {
	if _, ok := p.Kinds[t.RootName()]; !ok {
		return addr.Node{}, false
	}
	name, ok := attrStep(t, 1)
	if !ok {
		return addr.Node{}, false
	}
	a := addr.Node{Kind: t.RootName(), Name: name}
	if p.blockOf[a] == nil {
		return addr.Node{}, false
	}
	if len(t) > 2 {
		if idx, ok := t[2].(hcl.TraverseIndex); ok {
			if idx.Key.Type() == cty.String {
				a.Key = addr.StringKey(idx.Key.AsString())
			} else if idx.Key.Type() == cty.Number {
				i, _ := idx.Key.AsBigFloat().Int64()
				a.Key = addr.IntKey(int(i))
			}
		}
	}
	return a, true
}

// evalMeta evaluates the engine's arguments, which must be known at load time.
func (p *Pipeline) evalMeta(n *Node) hcl.Diagnostics {
	n.Meta.Deterministic = true
	r := &metaReader{p: p, n: n, meta: n.Block.meta}
	if n.Block.bodyLocals {
		r.context()
	}
	r.numbers()
	r.flags()
	said := ""
	var saidRange *hcl.Range
	if v, ok := r.get("executor", cty.String); ok {
		said, saidRange = v.AsString(), r.meta["executor"].Expr.Range().Ptr()
	}
	r.diags = append(r.diags, p.resolveExecutor(n, said, saidRange)...)
	if b := n.Block.slurm; b != nil {
		job, d := decodeSlurmJob(r.context(), b)
		r.diags = append(r.diags, d...)
		n.Meta.Slurm = job
	}
	if v, ok := r.get("cache", cty.Bool); ok {
		n.Meta.NoCache = v.False()
	}
	_, n.Meta.HasInputs = r.meta["inputs"]
	r.diags = append(r.diags, p.evalSealing(n, r.get)...)
	if n.Block.metrics != nil {
		r.diags = append(r.diags, p.evalMetrics(n, r.value)...)
	}
	return r.diags
}

// metaReader evaluates one node's engine-level arguments, gathering their
// diagnostics.
//
// The context is built when an argument is there to evaluate; most nodes
// set none. Only the locals a block uses can report errors while it is
// built, so with locals it is built at once and they are reported (those
// for_each and count alone use have been, as the block expanded). Either
// way it is built before n.Meta.Resources is set: self.resources holds cpu
// alone here, as the resources are being read.
type metaReader struct {
	p     *Pipeline
	n     *Node
	meta  map[string]*hcl.Attribute
	ctx   *hcl.EvalContext
	diags hcl.Diagnostics
}

func (r *metaReader) context() *hcl.EvalContext {
	if r.ctx == nil {
		var d hcl.Diagnostics
		r.ctx, d = r.p.evalContext(r.n, staticValues{r.p}, r.p.OutPath(r.n.Addr), newReads())
		r.diags = append(r.diags, d...)
	}
	return r.ctx
}

// value is a's value, known at load time and converted to want.
func (r *metaReader) value(a *hcl.Attribute, name string, want cty.Type) (cty.Value, bool) {
	v, d := a.Expr.Value(r.context())
	r.diags = append(r.diags, d...)
	if d.HasErrors() {
		return cty.NilVal, false
	}
	v, _ = v.Unmark()
	if !v.IsWhollyKnown() || v.IsNull() {
		r.fail(a, "Invalid "+name, name+" must be known when the pipeline loads.")
		return cty.NilVal, false
	}
	if want != cty.DynamicPseudoType {
		var err error
		if v, err = convertTo(v, want); err != nil {
			r.fail(a, "Invalid "+name, fmt.Sprintf("%s: %s.", name, err))
			return cty.NilVal, false
		}
	}
	return v, true
}

// get is the value of the argument name, when the block sets it.
func (r *metaReader) get(name string, want cty.Type) (cty.Value, bool) {
	a, ok := r.meta[name]
	if !ok {
		return cty.NilVal, false
	}
	return r.value(a, name, want)
}

func (r *metaReader) fail(a *hcl.Attribute, summary, detail string) {
	r.diags = append(r.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: a.Expr.Range().Ptr()})
}

// numbers reads resources, timeout, retries and total.
func (r *metaReader) numbers() {
	n, meta := r.n, r.meta
	if v, ok := r.get("resources", cty.Map(cty.Number)); ok {
		n.Meta.Resources = map[string]int64{}
		m := v.AsValueMap()
		for _, k := range slices.Sorted(maps.Keys(m)) {
			i, whole := wholeNumber(m[k], 0, MaxResource)
			if !whole {
				r.fail(meta["resources"], "Invalid resources", fmt.Sprintf("resources.%s = %s: an amount is a whole number from 0 to %d.", k, numberText(m[k]), int64(MaxResource)))
				continue
			}
			n.Meta.Resources[k] = i
		}
	}
	if v, ok := r.get("timeout", cty.String); ok {
		d, bad := parseTimeout(v.AsString())
		if bad != "" {
			r.fail(meta["timeout"], "Invalid timeout", bad)
		}
		n.Meta.Timeout = d
	}
	if v, ok := r.get("retries", cty.Number); ok {
		i, whole := wholeNumber(v, 0, MaxRetries)
		if !whole {
			r.fail(meta["retries"], "Invalid retries", fmt.Sprintf("retries = %s: it is how many times to run again after a failure, a whole number from 0 to %d.", numberText(v), MaxRetries))
		}
		n.Meta.Retries = int(i)
	}
	if v, ok := r.get("total", cty.Number); ok {
		i, whole := wholeNumber(v, 0, MaxTotal)
		if !whole {
			r.fail(meta["total"], "Invalid total", fmt.Sprintf("total = %s: it is the last step progress counts to, a whole number from 0 to %d.", numberText(v), int64(MaxTotal)))
		}
		n.Meta.Total = i
	}
	if v, ok := r.get("progress", cty.String); ok {
		n.Meta.Progress = v.AsString()
	}
}

// flags reads the true-or-false arguments and refuses the pairs that
// contradict each other.
func (r *metaReader) flags() {
	n, meta := r.n, r.meta
	for name, target := range map[string]*bool{"always_run": &n.Meta.AlwaysRun, "resumable": &n.Meta.Resumable, "deterministic": &n.Meta.Deterministic,
		"temp": &n.Meta.Temp, "protect": &n.Meta.Protect} {
		if v, ok := r.get(name, cty.Bool); ok {
			*target = v.True()
		}
	}
	if a, ok := n.Block.lifecycle["prevent_replace"]; ok {
		if v, ok := r.value(a, "prevent_replace", cty.Bool); ok && v.True() {
			n.Meta.Protect = true
		}
	}
	if n.Meta.Temp && (n.Meta.Resumable || kind.IsService(n.Block.Kind)) {
		r.fail(meta["temp"], "Invalid temp", "temp removes a result once its dependents are built; a service or a resumable node keeps its folder, so it cannot be temp.")
	}
	if n.Meta.Temp && n.Meta.Protect {
		r.fail(meta["temp"], "Invalid temp", "A node cannot be both temp (removed once used) and protected (never replaced).")
	}
}

// evalMetrics evaluates the node's metrics block into n.Meta.Metrics.
func (p *Pipeline) evalMetrics(n *Node, value func(*hcl.Attribute, string, cty.Type) (cty.Value, bool)) hcl.Diagnostics {
	attrs := n.Block.metrics
	var format, step string
	var patterns, keys []string
	ok := true
	for _, f := range []struct {
		name   string
		target *string
	}{{"format", &format}, {"step", &step}} {
		name, target := f.name, f.target
		if a, set := attrs[name]; set {
			v, good := value(a, "metrics "+name, cty.String)
			ok = ok && good
			if good {
				*target = v.AsString()
			}
		}
	}
	for _, f := range []struct {
		name   string
		target *[]string
	}{{"patterns", &patterns}, {"keys", &keys}} {
		name, target := f.name, f.target
		if a, set := attrs[name]; set {
			v, good := value(a, "metrics "+name, cty.List(cty.String))
			ok = ok && good
			if good {
				for _, x := range v.AsValueSlice() {
					*target = append(*target, x.AsString())
				}
			}
		}
	}
	if !ok {
		return nil // the evaluation errors are reported
	}
	spec, err := metrics.NewSpec(format, patterns, step, keys)
	if err != nil {
		subject := n.Block.metricsRange
		var se *metrics.SpecError
		if errors.As(err, &se) {
			if a, set := attrs[se.Attr]; set {
				subject = a.Expr.Range()
			}
		}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid metrics block", Detail: err.Error() + ".", Subject: subject.Ptr()}}
	}
	n.Meta.Metrics = spec
	return nil
}
