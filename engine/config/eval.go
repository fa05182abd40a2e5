package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// Values supplies what other nodes export at one moment: out, digest and
// their kind's exports, as an object per instance.
type Values interface {
	NodeValue(a addr.Node) (cty.Value, bool)
}

// Evaluated is a node's configuration evaluated in one scope.
type Evaluated struct {
	Config  cty.Value         // the kind's attributes, decoded with its Spec
	Inputs  []string          // the inputs argument, evaluated
	EnvRead map[string]string // variables read with env(): their names and values
	// FilesRead are the files the evaluation read (file, templatefile,
	// filesha256, fileexists), locals it uses included, as it read them.
	FilesRead []FileRead
	// Extensions are env_prepend and env_append as the node sets them: maps
	// of lists of paths, unknown while an upstream value is (see envext.go).
	Extensions map[string]cty.Value
}

// Evaluate evaluates n's configuration. selfOut is the value of self.out;
// each self.resources.NAME is the placeholder "${self.resources.NAME}", so
// that the amount a node is given stays out of its key.
func (p *Pipeline) Evaluate(n *Node, vals Values, selfOut string) (*Evaluated, hcl.Diagnostics) {
	return p.EvaluateRun(n, vals, selfOut, nil)
}

// EvaluateRun evaluates n's configuration for a run: self.resources holds
// what the node was given (granted), when not nil.
func (p *Pipeline) EvaluateRun(n *Node, vals Values, selfOut string, granted map[string]int64) (*Evaluated, hcl.Diagnostics) {
	body := n.Block.Body()
	if body == nil {
		return nil, forgotten(n)
	}
	direct, isDirect := p.evaluateDirect(n, vals, selfOut, body)
	if isDirect && !p.verifyDirect {
		return direct, nil
	}
	ev, diags := p.evaluateHCL(n, vals, selfOut, granted, body)
	if isDirect {
		diags = append(diags, directDiffers(n, direct, ev, diags)...)
	}
	return ev, diags
}

// evaluateHCL is EvaluateRun with HCL.
func (p *Pipeline) evaluateHCL(n *Node, vals Values, selfOut string, granted map[string]int64, body hcl.Body) (*Evaluated, hcl.Diagnostics) {
	rec := newReads()
	ctx, diags := p.nodeContext(n, vals, selfOut, granted, rec)
	if diags.HasErrors() {
		return nil, diags
	}
	cfg, d := n.Block.spec.decode(body, ctx)
	diags = append(diags, d...)
	if p.sensitive {
		diags = append(diags, commandSecrets(n, cfg)...)
	}
	ev := &Evaluated{Config: cfg, EnvRead: rec.env}
	if a, ok := n.Block.meta["inputs"]; ok && !n.Placeholder() {
		var d hcl.Diagnostics
		ev.Inputs, d = stringList(a, ctx)
		diags = append(diags, d...)
	}
	for _, name := range envExtensionArgs {
		if a, ok := n.Block.meta[name]; ok {
			v, d := envExtension(a, ctx)
			diags = append(diags, d...)
			if !d.HasErrors() && !v.IsNull() {
				if ev.Extensions == nil {
					ev.Extensions = map[string]cty.Value{}
				}
				ev.Extensions[name] = v
			}
		}
	}
	diags = append(diags, envConflicts(n, cfg, ev.Extensions)...)
	ev.FilesRead = rec.fileList()
	return ev, diags
}

// StaticValue is what a node exports before anything is known of its result:
// its stable output path, and an unknown digest.
func (p *Pipeline) StaticValue(a addr.Node) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"out":    cty.StringVal(p.OutPath(a)),
		"digest": cty.UnknownVal(cty.String),
	})
}

// OutPath is the stable output path of a node.
func (p *Pipeline) OutPath(a addr.Node) string {
	return p.StateDir + "/out/" + a.FileName()
}

type staticValues struct{ p *Pipeline }

func (s staticValues) NodeValue(a addr.Node) (cty.Value, bool) { return s.p.StaticValue(a), true }

// evalContext builds the context for n's expressions, holding only the nodes
// and locals n refers to.
func (p *Pipeline) evalContext(n *Node, vals Values, selfOut string, rec *reads) (*hcl.EvalContext, hcl.Diagnostics) {
	return p.nodeContext(n, vals, selfOut, nil, rec)
}

// nodeContext is evalContext with self.resources holding what the node was
// given (granted), when not nil.
func (p *Pipeline) nodeContext(n *Node, vals Values, selfOut string, granted map[string]int64, rec *reads) (*hcl.EvalContext, hcl.Diagnostics) {
	size := 2
	if n != nil {
		size = 6 + len(n.Block.refs) // self, local, each, count, a kind per reference at most
	}
	vars := make(map[string]cty.Value, size)
	vars["var"], vars["path"] = p.vars, p.pathValue()
	ctx := p.newNodeContext(rec, vars, n == nil || n.Block.callsEnv)
	var diags hcl.Diagnostics
	if n != nil {
		nodes, d := p.nodeObjects(n.Block.refs, vals, n)
		diags = append(diags, d...)
		for k, v := range nodes {
			ctx.Variables[k] = v
		}
		ctx.Variables["self"] = p.selfValue(n, selfOut, granted)
		if n.Each != nil {
			ctx.Variables["each"] = cty.ObjectVal(map[string]cty.Value{"key": n.Each.Key, "value": p.eachValue(n, vals)})
		}
		if n.CountIdx >= 0 {
			ctx.Variables["count"] = cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(n.CountIdx))})
		}
		if n.Placeholder() {
			// A dynamic block before its expansion: what depends on the
			// instance is not known yet.
			ctx.Variables["each"] = cty.ObjectVal(map[string]cty.Value{"key": cty.UnknownVal(cty.String), "value": cty.DynamicVal})
			ctx.Variables["count"] = cty.ObjectVal(map[string]cty.Value{"index": cty.UnknownVal(cty.Number)})
		}
		locals, d := p.localValues(n.Block, vals, rec)
		diags = append(diags, d...)
		ctx.Variables["local"] = locals
	}
	return ctx, diags
}

// pathValue is path: the object of path.root, made once.
func (p *Pipeline) pathValue() cty.Value {
	p.pathOnce.Do(func() {
		p.path = cty.ObjectVal(map[string]cty.Value{"root": cty.StringVal(p.Root)})
	})
	return p.path
}

// cpuPlaceholder is self.resources of a node that declares no resource but
// cpu, while its grant is not known.
var cpuPlaceholder = cty.ObjectVal(map[string]cty.Value{"cpu": cty.StringVal("${self.resources.cpu}")})

// selfPlaceholder is a self kept for one selfOut (see selfValue).
type selfPlaceholder struct {
	out   string
	value cty.Value
}

// selfValue is self: out, and resources with what the node was given of
// each resource it declares (cpu is always there, 1 unless declared), or
// placeholders when granted is nil. The self of a node that declares no
// resource but cpu, while its grant is not known, is the same for every
// node evaluated with the same selfOut (each decision uses one), so the
// last one made is kept.
func (p *Pipeline) selfValue(n *Node, selfOut string, granted map[string]int64) cty.Value {
	if granted == nil && onlyCPU(n.Meta.Resources) {
		if c := p.selfPH.Load(); c != nil && c.out == selfOut {
			return c.value
		}
		v := cty.ObjectVal(map[string]cty.Value{"out": cty.StringVal(selfOut), "resources": cpuPlaceholder})
		p.selfPH.Store(&selfPlaceholder{out: selfOut, value: v})
		return v
	}
	return newSelf(n, selfOut, granted)
}

// onlyCPU reports whether resources declares nothing but cpu.
func onlyCPU(resources map[string]int64) bool {
	for name := range resources {
		if name != "cpu" {
			return false
		}
	}
	return true
}

func newSelf(n *Node, selfOut string, granted map[string]int64) cty.Value {
	res := map[string]cty.Value{}
	names := []string{"cpu"}
	for name := range n.Meta.Resources {
		if name != "cpu" {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if granted == nil {
			res[name] = cty.StringVal("${self.resources." + name + "}")
			continue
		}
		amount, ok := granted[name]
		if !ok && name == "cpu" {
			amount = 1
		}
		res[name] = cty.NumberIntVal(amount)
	}
	return cty.ObjectVal(map[string]cty.Value{"out": cty.StringVal(selfOut), "resources": cty.ObjectVal(res)})
}

// nodeObjects builds the kind-rooted objects (exec = {a = {...}}) for the
// given references. For the blocks that node n (when not nil) references
// only instance by instance, the object holds only those instances.
func (p *Pipeline) nodeObjects(refs []reference, vals Values, n *Node) (map[string]cty.Value, hcl.Diagnostics) {
	byKind := map[string]map[string]cty.Value{}
	for _, r := range refs {
		blk := r.target.Block()
		if _, done := byKind[blk.Kind][blk.Name]; done {
			continue
		}
		if byKind[blk.Kind] == nil {
			byKind[blk.Kind] = map[string]cty.Value{}
		}
		if n != nil && slices.Contains(n.partial, blk) {
			byKind[blk.Kind][blk.Name] = p.partialValue(blk, n.Deps, vals)
			continue
		}
		byKind[blk.Kind][blk.Name] = p.blockValue(blk, vals)
	}
	out := make(map[string]cty.Value, len(byKind))
	for k, m := range byKind {
		out[k] = cty.ObjectVal(m)
	}
	return out, nil
}

// blockValue is a block's value: an instance object, an object of for_each
// instances, or a tuple of count instances.
func (p *Pipeline) blockValue(blk addr.Node, vals Values) cty.Value {
	b := p.blockOf[blk]
	if b != nil && b.dynamic == nil && b.ForEach == nil && b.Count == nil {
		return p.valueOf(blk, vals) // one instance: the block's own address
	}
	insts, known := p.blockInstances(blk)
	if !known {
		return cty.DynamicVal // a dynamic block before its expansion
	}
	switch {
	case b != nil && b.ForEach != nil:
		m := make(map[string]cty.Value, len(insts))
		for _, a := range insts {
			m[a.Key.Str] = p.valueOf(a, vals)
		}
		return cty.ObjectVal(m)
	case b != nil && b.Count != nil:
		l := make([]cty.Value, len(insts))
		for i, a := range insts {
			l[i] = p.valueOf(a, vals)
		}
		if len(l) == 0 {
			return cty.EmptyTupleVal
		}
		return cty.TupleVal(l)
	default:
		return p.valueOf(blk, vals)
	}
}

// valueOf is a node's value in vals, or its static value while vals has
// none.
func (p *Pipeline) valueOf(a addr.Node, vals Values) cty.Value {
	if v, ok := vals.NodeValue(a); ok {
		return v
	}
	return p.StaticValue(a)
}

// partialValue is a block's value holding only the instances among deps:
// an object of those for_each instances, or a tuple of the count instances
// with the others left unknown.
func (p *Pipeline) partialValue(blk addr.Node, deps []addr.Node, vals Values) cty.Value {
	b := p.blockOf[blk]
	switch {
	case b != nil && b.ForEach != nil:
		m := map[string]cty.Value{}
		for _, a := range deps {
			if a.Block() == blk {
				m[a.Key.Str] = p.valueOf(a, vals)
			}
		}
		return cty.ObjectVal(m)
	case b != nil && b.Count != nil:
		insts, known := p.blockInstances(blk)
		if !known {
			return cty.DynamicVal
		}
		if len(insts) == 0 {
			return cty.EmptyTupleVal
		}
		l := make([]cty.Value, len(insts))
		for i := range l {
			l[i] = cty.DynamicVal
		}
		for _, a := range deps {
			if a.Block() == blk && a.Key.IsInt && a.Key.Int >= 0 && a.Key.Int < len(l) {
				l[a.Key.Int] = p.valueOf(a, vals)
			}
		}
		return cty.TupleVal(l)
	default:
		return p.blockValue(blk, vals)
	}
}

// localValues evaluates the locals a block uses. Locals that reference no
// node are evaluated once per pipeline.
func (p *Pipeline) localValues(b *Block, vals Values, rec *reads) (cty.Value, hcl.Diagnostics) {
	used := map[string]bool{}
	var collect func(name string)
	collect = func(name string) {
		if used[name] {
			return
		}
		used[name] = true
		for _, d := range p.Locals[name].deps {
			collect(d)
		}
	}
	for _, t := range blockLocalNames(b) {
		collect(t)
	}
	if len(used) == 0 {
		return cty.EmptyObjectVal, nil
	}
	// Each local's value comes with the environment variables and files its
	// evaluation read, its dependencies' included, so a node using a cached
	// local still has those variables in its key and those files watched.
	type evaluated struct {
		value cty.Value
		rec   *reads
	}
	memo := map[string]evaluated{}
	var diags hcl.Diagnostics
	var eval func(name string) evaluated
	eval = func(name string) evaluated {
		if e, ok := memo[name]; ok {
			return e
		}
		l := p.Locals[name]
		if len(l.nodes) == 0 {
			p.staticMu.Lock()
			e, ok := p.static[name]
			p.staticMu.Unlock()
			if ok {
				return evaluated(e)
			}
		}
		reads := newReads()
		lv := map[string]cty.Value{}
		for _, d := range l.deps {
			dep := eval(d)
			lv[d] = dep.value
			reads.merge(dep.rec)
		}
		refs := make([]reference, len(l.nodes))
		for i, n := range l.nodes {
			refs[i] = reference{target: n}
		}
		nodes, _ := p.nodeObjects(refs, vals, nil)
		ctx := p.newContext(reads, map[string]cty.Value{
			"var":   p.vars,
			"path":  cty.ObjectVal(map[string]cty.Value{"root": cty.StringVal(p.Root)}),
			"local": cty.ObjectVal(lv),
		})
		for k, v := range nodes {
			ctx.Variables[k] = v
		}
		v, d := l.Expr.Value(ctx)
		diags = append(diags, d...)
		e := evaluated{v, reads}
		memo[name] = e
		if len(l.nodes) == 0 && !d.HasErrors() {
			p.staticMu.Lock()
			if p.static == nil {
				p.static = map[string]staticLocal{}
			}
			p.static[name] = staticLocal{value: v, rec: reads}
			p.staticMu.Unlock()
		}
		return e
	}
	out := map[string]cty.Value{}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		e := eval(n)
		out[n] = e.value
		rec.merge(e.rec)
	}
	return cty.ObjectVal(out), diags
}

func blockLocalNames(b *Block) []string { return b.locals }

func stringList(a *hcl.Attribute, ctx *hcl.EvalContext) ([]string, hcl.Diagnostics) {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return nil, diags
	}
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() || !v.IsWhollyKnown() {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Value not known yet", Detail: fmt.Sprintf("%s must be known before the node runs.", a.Name), Subject: a.Expr.Range().Ptr()}}
	}
	t := v.Type()
	if !t.IsListType() && !t.IsTupleType() && !t.IsSetType() {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name, Detail: fmt.Sprintf("%s must be a list of strings.", a.Name), Subject: a.Expr.Range().Ptr()}}
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.Type() != cty.String || e.IsNull() {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name, Detail: fmt.Sprintf("%s must be a list of strings.", a.Name), Subject: a.Expr.Range().Ptr()}}
		}
		e, _ = e.Unmark()
		out = append(out, e.AsString())
	}
	return out, nil
}

// EvaluateOutput evaluates a pipeline output against node values.
func (p *Pipeline) EvaluateOutput(o *Output, vals Values) (cty.Value, hcl.Diagnostics) {
	travs := variablesOf(o.Expr)
	var refs []reference
	blocks := map[addr.Node]*Block{}
	for a, b := range p.blockOf {
		blocks[a] = b
	}
	refs, locals, _, diags := p.scan(travs, blocks, false, nil)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	nodes, _ := p.nodeObjects(refs, vals, nil)
	ctx, d := p.evalContext(nil, vals, "", nil)
	diags = append(diags, d...)
	for k, v := range nodes {
		ctx.Variables[k] = v
	}
	lv, d := p.localValues(&Block{locals: locals}, vals, nil)
	diags = append(diags, d...)
	ctx.Variables["local"] = lv
	v, d := o.Expr.Value(ctx)
	return v, append(diags, d...)
}

// unknownValues gives every node an unknown value: expressions are checked
// without reading what nodes have not made yet.
type unknownValues struct{}

func (unknownValues) NodeValue(addr.Node) (cty.Value, bool) { return cty.DynamicVal, true }

// CheckExpressions evaluates every local and every output with the values
// of nodes unknown, so what would fail at any time — a function that does
// not exist, a wrong argument type, a file that is not there — is reported
// before anything runs, even for a local that only an output uses.
func (p *Pipeline) CheckExpressions() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range slices.Sorted(maps.Keys(p.Locals)) {
		_, d := p.localValues(&Block{locals: []string{name}}, unknownValues{}, newReads())
		diags = append(diags, d...)
	}
	for _, o := range p.Outputs {
		_, d := p.EvaluateOutput(o, unknownValues{})
		diags = append(diags, d...)
	}
	return dedupe(diags)
}

// dedupe drops diagnostics repeated at the same place (a local checked on
// its own and again through the locals that use it).
func dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	seen := map[string]bool{}
	var out hcl.Diagnostics
	for _, d := range diags {
		k := d.Summary + "\x00" + d.Detail
		if d.Subject != nil {
			k += "\x00" + d.Subject.String()
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// bodyAttribute is the argument name of a block's body (what the
// meta-arguments leave), or nil. The syntax tree is read directly: a name
// hidden from it is a meta-argument's, never in the body as well.
func bodyAttribute(body hcl.Body, name string) *hcl.Attribute {
	if body == nil {
		return nil // let go (ForgetBlock)
	}
	if b, ok := body.(*hclsyntax.Body); ok {
		if a := b.Attributes[name]; a != nil {
			return a.AsHCLAttribute()
		}
		return nil
	}
	content, _, _ := body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: name}}})
	if content == nil {
		return nil
	}
	return content.Attributes[name]
}

// StaticStrings evaluates one list-of-strings argument of n — a
// meta-argument (inputs) or one of its kind's (outputs) — with what is
// known when the pipeline loads. ok is false when n does not set it or its
// value is not known before anything runs.
func (p *Pipeline) StaticStrings(n *Node, name string) (list []string, ok bool) {
	a, found := n.Block.meta[name]
	switch {
	case found:
	case name == "outputs":
		// Kept from the load, so that the graph parses no block again.
		if a = n.Block.outputs; a == nil {
			return nil, false
		}
	default:
		if a = bodyAttribute(n.Block.Body(), name); a == nil {
			return nil, false
		}
	}
	ctx, diags := p.evalContext(n, staticValues{p}, p.OutPath(n.Addr), newReads())
	if diags.HasErrors() {
		return nil, false
	}
	list, diags = stringList(a, ctx)
	return list, !diags.HasErrors()
}
