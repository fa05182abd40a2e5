package config

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
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
	p.instances = map[addr.Node][]addr.Node{}
	p.blockOf = map[addr.Node]*Block{}
	for _, b := range p.Blocks {
		p.blockOf[b.Addr()] = b
	}
	for _, b := range p.Blocks {
		b.dynamic = p.dynamicSources(b)
	}
	p.resolveFollowers()
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
		nodes, d := p.instancesOf(b)
		diags = append(diags, d...)
		for _, n := range nodes {
			p.instances[b.Addr()] = append(p.instances[b.Addr()], n.Addr)
		}
		p.Nodes = append(p.Nodes, nodes...)
	}
	for _, b := range p.Blocks {
		instantiate(b)
	}
	if diags.HasErrors() {
		return diags
	}
	p.sortNodes()
	static := p.staticContext()
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
	return diags
}

func (p *Pipeline) instancesOf(b *Block) ([]*Node, hcl.Diagnostics) {
	base := addr.Node{Kind: b.Kind.Name(), Name: b.Name}
	switch {
	case b.dynamic != nil:
		a := base
		a.Key = addr.AllKey()
		return []*Node{{Addr: a, Block: b, CountIdx: -1, DeclRange: b.DeclRange, Dynamic: &Dynamic{After: b.dynamic}}}, nil
	case b.follows != nil:
		return p.followerInstances(b), nil
	case b.ForEach != nil:
		v, diags := b.ForEach.Value(p.staticContext())
		if diags.HasErrors() {
			return nil, diags
		}
		if !v.IsWhollyKnown() {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument", Detail: "for_each must be known when the pipeline loads: use variables, locals and literal values, or the results of other nodes through fileset, glob_wildcards, listfile or file.", Subject: b.ForEach.Range().Ptr()}}
		}
		return p.forEachInstances(b, v, maxInstances)
	case b.Count != nil:
		v, diags := b.Count.Value(p.staticContext())
		if diags.HasErrors() {
			return nil, diags
		}
		return p.countInstances(b, v, maxInstances)
	default:
		return []*Node{{Addr: base, Block: b, CountIdx: -1, DeclRange: b.DeclRange}}, nil
	}
}

// forEachInstances makes one instance per element of a for_each value, at
// most limit of them.
func (p *Pipeline) forEachInstances(b *Block, v cty.Value, limit int) ([]*Node, hcl.Diagnostics) {
	base := b.Addr()
	bad := func(detail string) hcl.Diagnostics {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid for_each argument", Detail: detail, Subject: b.ForEach.Range().Ptr()}}
	}
	if !v.IsWhollyKnown() {
		return nil, bad("for_each is not known yet.")
	}
	if v.IsNull() {
		return nil, bad("for_each must not be null.")
	}
	if v.ContainsMarked() {
		return nil, bad("for_each must not use sensitive values (read with env() or from a sensitive variable): instance keys appear in addresses, plans and state.")
	}
	t := v.Type()
	stringSet := t.IsSetType() && (t.ElementType() == cty.String || t.ElementType() == cty.DynamicPseudoType)
	if !t.IsMapType() && !t.IsObjectType() && !stringSet {
		return nil, bad(fmt.Sprintf("for_each takes a map, an object or a set of strings; this is a %s. Wrap a list in toset(...).", t.FriendlyName()))
	}
	if n := v.LengthInt(); n > limit {
		return nil, bad(fmt.Sprintf("for_each has %s elements, more than the limit of %s instances of one block%s.", thousands(n), thousands(limit), limitHint(b)))
	}
	var nodes []*Node
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		if stringSet {
			k = val
		}
		a := base
		a.Key = addr.StringKey(k.AsString())
		nodes = append(nodes, &Node{Addr: a, Block: b, Each: &EachValue{Key: k, Value: val}, CountIdx: -1, DeclRange: b.DeclRange})
	}
	return nodes, nil
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
	for _, name := range sortedKeys(p.Locals) {
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

// resolveDeps turns the block's references into instance dependencies. A
// reference with an index known at load time names one instance; static is
// the context such an index is evaluated in, before each and count.
func (p *Pipeline) resolveDeps(n *Node, static *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	set := map[addr.Node]bool{}
	whole := map[addr.Node]bool{} // blocks referenced as a whole
	var ictx *hcl.EvalContext
	resolve := func(target addr.Node, index hcl.Expression) addr.Node {
		if index == nil {
			return target
		}
		if ictx == nil {
			ictx = instanceContext(static, n)
		}
		if t, ok := p.instanceKey(ictx, target, index); ok {
			return t
		}
		return target
	}
	self := func(target addr.Node, rng hcl.Range, what string) bool {
		if target != n.Addr && (target.Key.Set || target != n.Addr.Block()) {
			return false
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Self-reference",
			Detail: fmt.Sprintf("%s %s: a node cannot wait for its own result (a cycle of one). Its own output folder is self.out.", n.Addr, what), Subject: rng.Ptr()})
		return true
	}
	add := func(target addr.Node, rng hcl.Range) {
		if target.Key.Set {
			if p.Node(target) == nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Reference to undeclared instance",
					Detail: fmt.Sprintf("%s has no instance %s.", target.Block(), target.Key), Subject: rng.Ptr()})
				return
			}
			set[target] = true
			return
		}
		whole[target] = true
		insts, known := p.blockInstances(target)
		if !known {
			insts = p.instances[target] // the placeholder
		}
		for _, inst := range insts {
			set[inst] = true
		}
	}
	for _, r := range n.Block.refs {
		if (n.Dynamic != nil || n.Block.follows != nil) && !n.Placeholder() && n.Block.decides(r.rng) {
			continue // an instance takes its key and value from there, not a digest
		}
		// An index not known at load time may name another instance of
		// the same block (a chain of instances); one that is known, or no
		// index at all, names the node itself or its whole block.
		t := resolve(r.target, r.index)
		if (r.index == nil || t.Key.Set) && self(t, r.rng, "refers to itself") {
			continue
		}
		add(t, r.rng)
	}
	if src, ok := n.followed(); ok && n.Block.readsEach {
		add(src, n.Block.ForEach.Range()) // each.value is that instance's
	}
	meta := n.Block.meta
	if a, ok := meta["depends_on"]; ok {
		exprs, d := hcl.ExprList(a.Expr)
		diags = append(diags, d...)
		for _, e := range exprs {
			target, index, ok := p.dependsOnTarget(e)
			if !ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid depends_on", Detail: "depends_on lists node addresses, like [service.sandbox, exec.prepare, exec.map[each.key]].", Subject: e.Range().Ptr()})
				continue
			}
			target = resolve(target, index)
			if (index == nil || target.Key.Set) && self(target, e.Range(), "depends on itself") {
				continue
			}
			n.Meta.DependsOn = append(n.Meta.DependsOn, target)
			add(target, e.Range())
		}
	}
	for _, name := range []string{"host", "toolchain"} {
		if a, ok := meta[name]; ok {
			t, d := hcl.AbsTraversalForExpr(a.Expr)
			target, ok := p.traversalNode(t)
			if d.HasErrors() || !ok || target.Kind != name {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name, Detail: fmt.Sprintf("%s names a %s node, like %s = %s.NAME.", name, name, name, name), Subject: a.Expr.Range().Ptr()})
				continue
			}
			if name == "host" {
				n.Meta.Host = &target
			} else {
				n.Meta.Toolchain = &target
			}
		}
	}
	delete(set, n.Addr)
	for a := range set {
		n.Deps = append(n.Deps, a)
	}
	sort.Slice(n.Deps, func(i, j int) bool { return n.Deps[i].Less(n.Deps[j]) })
	for _, r := range n.Block.refs {
		if blk := r.target.Block(); !whole[blk] && !slices.Contains(n.partial, blk) {
			n.partial = append(n.partial, blk)
		}
	}
	return diags
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
	var diags hcl.Diagnostics
	n.Meta.Deterministic = true
	// The context is built when an argument is there to evaluate; most
	// nodes set none. Only the locals a block uses can report errors while
	// it is built, so with locals it is built at once and they are reported.
	// Either way it is built before n.Meta.Resources is set: self.resources
	// holds cpu alone here, as the resources are being read.
	var ctx *hcl.EvalContext
	context := func() *hcl.EvalContext {
		if ctx == nil {
			var d hcl.Diagnostics
			ctx, d = p.evalContext(n, staticValues{p}, p.OutPath(n.Addr), newReads())
			diags = append(diags, d...)
		}
		return ctx
	}
	if len(n.Block.locals) > 0 {
		context()
	}
	meta := n.Block.meta
	value := func(a *hcl.Attribute, name string, want cty.Type) (cty.Value, bool) {
		v, d := a.Expr.Value(context())
		diags = append(diags, d...)
		if d.HasErrors() {
			return cty.NilVal, false
		}
		v, _ = v.Unmark()
		if !v.IsWhollyKnown() || v.IsNull() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name, Detail: name + " must be known when the pipeline loads.", Subject: a.Expr.Range().Ptr()})
			return cty.NilVal, false
		}
		if want != cty.DynamicPseudoType {
			var err error
			if v, err = convertTo(v, want); err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + name, Detail: fmt.Sprintf("%s: %s.", name, err), Subject: a.Expr.Range().Ptr()})
				return cty.NilVal, false
			}
		}
		return v, true
	}
	get := func(name string, want cty.Type) (cty.Value, bool) {
		a, ok := meta[name]
		if !ok {
			return cty.NilVal, false
		}
		return value(a, name, want)
	}
	if v, ok := get("resources", cty.Map(cty.Number)); ok {
		n.Meta.Resources = map[string]int64{}
		m := v.AsValueMap()
		for _, k := range sortedKeys(m) {
			i, whole := wholeNumber(m[k], 0, MaxResource)
			if !whole {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid resources", Detail: fmt.Sprintf("resources.%s = %s: an amount is a whole number from 0 to %d.", k, numberText(m[k]), int64(MaxResource)), Subject: meta["resources"].Expr.Range().Ptr()})
				continue
			}
			n.Meta.Resources[k] = i
		}
	}
	if v, ok := get("timeout", cty.String); ok {
		d, bad := parseTimeout(v.AsString())
		if bad != "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid timeout", Detail: bad, Subject: meta["timeout"].Expr.Range().Ptr()})
		}
		n.Meta.Timeout = d
	}
	if v, ok := get("retries", cty.Number); ok {
		i, whole := wholeNumber(v, 0, MaxRetries)
		if !whole {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid retries", Detail: fmt.Sprintf("retries = %s: it is how many times to run again after a failure, a whole number from 0 to %d.", numberText(v), MaxRetries), Subject: meta["retries"].Expr.Range().Ptr()})
		}
		n.Meta.Retries = int(i)
	}
	for name, target := range map[string]*bool{"always_run": &n.Meta.AlwaysRun, "resumable": &n.Meta.Resumable, "deterministic": &n.Meta.Deterministic,
		"temp": &n.Meta.Temp, "protect": &n.Meta.Protect} {
		if v, ok := get(name, cty.Bool); ok {
			*target = v.True()
		}
	}
	if a, ok := n.Block.lifecycle["prevent_replace"]; ok {
		if v, ok := value(a, "prevent_replace", cty.Bool); ok && v.True() {
			n.Meta.Protect = true
		}
	}
	if n.Meta.Temp && (n.Meta.Resumable || n.Block.Kind.Name() == "service") {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid temp", Detail: "temp removes a result once its dependents are built; a service or a resumable node keeps its folder, so it cannot be temp.", Subject: meta["temp"].Expr.Range().Ptr()})
	}
	if n.Meta.Temp && n.Meta.Protect {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid temp", Detail: "A node cannot be both temp (removed once used) and protected (never replaced).", Subject: meta["temp"].Expr.Range().Ptr()})
	}
	if v, ok := get("progress", cty.String); ok {
		n.Meta.Progress = v.AsString()
	}
	if v, ok := get("total", cty.Number); ok {
		i, whole := wholeNumber(v, 0, MaxTotal)
		if !whole {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid total", Detail: fmt.Sprintf("total = %s: it is the last step progress counts to, a whole number from 0 to %d.", numberText(v), int64(MaxTotal)), Subject: meta["total"].Expr.Range().Ptr()})
		}
		n.Meta.Total = i
	}
	said := ""
	var saidRange *hcl.Range
	if v, ok := get("executor", cty.String); ok {
		said, saidRange = v.AsString(), meta["executor"].Expr.Range().Ptr()
	}
	diags = append(diags, p.resolveExecutor(n, said, saidRange)...)
	if b := n.Block.slurm; b != nil {
		job, d := decodeSlurmJob(context(), b)
		diags = append(diags, d...)
		n.Meta.Slurm = job
	}
	if v, ok := get("cache", cty.Bool); ok {
		n.Meta.NoCache = v.False()
	}
	_, n.Meta.HasInputs = meta["inputs"]
	diags = append(diags, p.evalSealing(n, get)...)
	if n.Block.metrics != nil {
		diags = append(diags, p.evalMetrics(n, value)...)
	}
	return diags
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
