package config

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/metrics"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Pipeline is a loaded pipeline.
type Pipeline struct {
	Root      string // absolute folder of the pipeline (path.root)
	StateDir  string // absolute .kiln folder
	Files     map[string]*hcl.File
	FileNames []string // the pipeline's own files, sorted, relative to Root
	Variables map[string]*Variable
	Locals    map[string]*Local
	Outputs   []*Output
	Moved     []*Moved // moved blocks, in source order

	recordReads bool // Options.RecordReads
	funcsOnce   sync.Once
	funcs       map[string]function.Function // see functions
	funcsShared *hcl.EvalContext             // funcs, as the parent of evaluations' contexts
	callsKnown  bool                         // every function the files call exists: see newContext
	// StrictLock, from kiln { strict_lock = true }: a build that does not
	// reproduce the digest kiln.lock.hcl records under the same key fails.
	StrictLock bool
	// Shell, from kiln { shell = [...] }: what string commands of sealed
	// kinds run in, unless a node sets its own; nil for the default.
	Shell  []string
	Pools  map[string]*Pool // pool blocks by name
	Blocks []*Block         // node blocks in source order
	Nodes  []*Node          // node instances, sorted by address
	Kinds  map[string]kind.Kind
	// Executors are the executor blocks by address (slurm.NAME);
	// DefaultExecutor names the one with default = true, if any.
	Executors       map[string]*Executor
	DefaultExecutor string
	// Cache is the remote cache block, if any.
	Cache *Cache

	executorBlocks []*hcl.Block
	cacheBlocks    []*hcl.Block

	poolBlocks []*hcl.Block
	// shared are the top-level blocks every node may read, in file order
	// (SharedIdentity); opaque when a block has no source (a JSON file).
	shared    []sharedBlock
	opaque    bool
	index     map[addr.Node]*Node
	instances map[addr.Node][]addr.Node // block address -> its instances, in order
	blockOf   map[addr.Node]*Block
	vars      cty.Value // object of variable values
	sensitive bool      // a variable is declared sensitive (commandSecrets)
	reads     readLog
	specs     map[string]*kindSpec // by kind name, computed once
	staticMu  sync.Mutex
	static    map[string]staticLocal // locals that reference no node, evaluated once
	dynMu     sync.RWMutex
	expanded  map[addr.Node]*expansion // dynamic blocks expanded so far, by block address
	maxDyn    int                      // Options.MaxDynamic
	// verifyDirect is Options.VerifyDirect.
	verifyDirect bool
	pathOnce     sync.Once
	path         cty.Value                       // path, made once (pathValue)
	selfPH       atomic.Pointer[selfPlaceholder] // see Pipeline.selfValue
}

// Node returns the instance at a, or nil. The instances of a dynamic block
// are found once it is expanded.
func (p *Pipeline) Node(a addr.Node) *Node {
	if n := p.index[a]; n != nil {
		return n
	}
	if !a.Key.Set || a.Key.All || !p.Dynamic(a) {
		return nil
	}
	p.dynMu.RLock()
	defer p.dynMu.RUnlock()
	if e := p.expanded[a.Block()]; e != nil {
		return e.index[a]
	}
	return nil
}

// HasBlock reports whether the pipeline has a node block at a (its
// address without an instance key).
func (p *Pipeline) HasBlock(a addr.Node) bool { return p.blockOf[a] != nil }

// Variable is a declared input variable and its resolved value.
type Variable struct {
	Name        string
	Type        cty.Type
	Description string
	Default     cty.Value
	Value       cty.Value
	Sensitive   bool
	DeclRange   hcl.Range
	validations []*validation
}

type validation struct {
	condition hcl.Expression
	message   hcl.Expression
	rng       hcl.Range
}

// Local is one entry of a locals block.
type Local struct {
	Name  string
	Expr  hcl.Expression
	Range hcl.Range
	nodes []addr.Node // nodes the local references, directly or through other locals
	deps  []string    // locals it references
}

// Output is a declared pipeline output.
type Output struct {
	Name        string
	Description string
	Expr        hcl.Expression
	Sensitive   bool
	DeclRange   hcl.Range
	Deps        []addr.Node
}

// Block is a node block before expansion.
type Block struct {
	Kind      kind.Kind
	spec      *kindSpec
	Name      string
	DeclRange hcl.Range
	// Source is the whole block in its file, from its type to its closing
	// brace (NodeIdentity); zero in a JSON file.
	Source hcl.Range
	// instances is the for_each or count argument in Source: an instance
	// reads it only as each.key, each.value or count.index.
	instances hcl.Range
	names     names // the variables and locals it names (NodeIdentity)
	// syntax is the kind's own attributes (meta-arguments removed), nil
	// while only src holds them (see Body).
	syntax    hcl.Body
	src       []byte // the block's source, for Body to parse again; nil when its tree is kept
	syntaxMu  sync.Mutex
	metaTaken bool // syntax is what is left once the meta-arguments are taken out
	// outputs is the kind's outputs argument, when the block sets it: read
	// for the graph (StaticStrings) before any node is evaluated.
	outputs *hcl.Attribute
	ForEach hcl.Expression
	Count   hcl.Expression
	meta    hcl.Attributes
	// metrics are the attributes of the metrics block; nil without one.
	metrics      hcl.Attributes
	metricsRange hcl.Range
	refs         []reference // references found in the block, meta-arguments included
	locals       []string    // locals the block uses directly
	bodyLocals   bool        // a local is used beyond for_each and count (which are evaluated once per block)
	selfOut      bool
	self         bool        // reads self (self.out or self.resources) anywhere
	callsEnv     bool        // its expressions may call env() (analyseBlock)
	outOnly      bool        // reads nothing of other nodes but their out (readsOnlyOut)
	slurm        *hcl.Block  // the node's slurm { } block
	dynamic      []addr.Node // for a dynamic block: the blocks its for_each or count reads
	follows      *addr.Node  // for_each = KIND.NAME of a for_each block: the block it follows (follow.go)
	readsEach    bool        // reads each.value, or each as a whole
	lifecycle    hcl.Attributes
}

// decides reports whether a source range lies in the block's for_each or
// count.
func (b *Block) decides(r hcl.Range) bool {
	for _, e := range []hcl.Expression{b.ForEach, b.Count} {
		if e != nil {
			er := e.Range()
			if er.Filename == r.Filename && er.Start.Byte <= r.Start.Byte && r.End.Byte <= er.End.Byte {
				return true
			}
		}
	}
	return false
}

// Addr is the block's address (no instance key).
func (b *Block) Addr() addr.Node { return addr.Node{Kind: b.Kind.Name(), Name: b.Name} }

// Node is one instance of a node block.
type Node struct {
	Addr     addr.Node
	Block    *Block
	Each     *EachValue // for_each instances
	CountIdx int        // count instances; -1 otherwise
	Deps     []addr.Node
	// InputsFrom maps an input pattern to the node that writes it in place
	// (its outputs): that node is a dependency, and the input is hashed only
	// once it ran.
	InputsFrom map[string]addr.Node
	Meta       Meta
	DeclRange  hcl.Range
	Dynamic    *Dynamic // the placeholder and instances of a dynamic block
	// partial lists the blocks n references only instance by instance
	// (exec.map[each.key], exec.a["x"]): its configuration sees only the
	// instances of those blocks that are among its Deps.
	partial []addr.Node
}

// EachValue is the each.key / each.value of a for_each instance.
type EachValue struct {
	Key   cty.Value
	Value cty.Value
}

// Meta holds a node's evaluated engine-level arguments.
type Meta struct {
	DependsOn     []addr.Node
	Resources     map[string]int64
	Timeout       time.Duration
	Retries       int
	AlwaysRun     bool
	Resumable     bool
	Deterministic bool
	Host          *addr.Node
	Toolchain     *addr.Node
	Progress      string
	Total         int64
	Executor      string    // the executor's address (slurm.NAME, or "slurm"); "" runs locally
	Slurm         *SlurmJob // the node's slurm block, if any
	NoCache       bool      // cache = false: never pulled from or pushed to a remote cache
	HasInputs     bool
	Metrics       *metrics.Spec // what to read from the node's log; nil for nothing
	// Temp: the result is removed from the store once every dependent has
	// a result built from it, and rebuilt only when one must run again.
	Temp bool
	// Protect (or lifecycle { prevent_replace = true }): once built, the
	// result is never replaced unless -replace names the node.
	Protect bool
	// Shell is the node's own shell setting; nil for the pipeline's.
	Shell []string
	// Unsandboxed is sandbox_reason when the node sets sandbox = false:
	// its runs are not confined. "" for a sealed node.
	Unsandboxed string
	// ReportReads: sandbox = "report". The node's runs may read all of the
	// pipeline folder, under strace, and apply names what they read there
	// without declaring it; writes stay sealed.
	ReportReads bool
}

func (p *Pipeline) sortNodes() {
	sort.Slice(p.Nodes, func(i, j int) bool { return p.Nodes[i].Addr.Less(p.Nodes[j].Addr) })
	p.index = make(map[addr.Node]*Node, len(p.Nodes))
	for _, n := range p.Nodes {
		p.index[n.Addr] = n
	}
}

// ReadsOnlyOut reports whether n's configuration reads nothing of other
// nodes but their stable paths (KIND.NAME.out): it then evaluates the same
// whatever their digests, and a built node can be decided again from its
// key lines (plan.Rekey).
func (n *Node) ReadsOnlyOut() bool { return n.Block != nil && n.Block.outOnly }

// AttrRange is where attribute name is set in n's block (its expression),
// or the block's header when it is not set there.
func (n *Node) AttrRange(name string) hcl.Range {
	if a, ok := n.Block.meta[name]; ok {
		return a.Expr.Range()
	}
	if body, ok := n.Block.Body().(*hclsyntax.Body); ok {
		if a, ok := body.Attributes[name]; ok {
			return a.Expr.Range()
		}
	}
	return n.DeclRange
}

// staticLocal is a local that references no node, evaluated once, with the
// environment variables and files its evaluation read.
type staticLocal struct {
	value cty.Value
	rec   *reads
}

// kindSpec is a kind's schema, computed once per pipeline: Spec may build
// its map anew on every call.
type kindSpec struct {
	spec   hcldec.ObjectSpec
	schema *hcl.BodySchema // implied by spec, with the meta-arguments
	// attrs are the attributes of a spec made of attributes alone, with or
	// without a literal default (attrsOnly), sorted: see specVariables.
	attrs     []string
	attrsOnly bool
	decoding  []specAttr // how decodeAttrs reads them; nil when it cannot
}

// specAttrs lists the attributes of a spec made of attributes alone (each
// an AttrSpec, or one with a literal default); ok is false for any other.
func specAttrs(spec hcldec.ObjectSpec) (names []string, ok bool) {
	for name, s := range spec {
		if d, isDefault := s.(*hcldec.DefaultSpec); isDefault {
			if _, literal := d.Default.(*hcldec.LiteralSpec); !literal {
				return nil, false
			}
			s = d.Primary
		}
		a, isAttr := s.(*hcldec.AttrSpec)
		if !isAttr || a.Name != name {
			return nil, false
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, true
}

func (p *Pipeline) spec(k kind.Kind) *kindSpec {
	if s, ok := p.specs[k.Name()]; ok {
		return s
	}
	spec := k.Spec()
	schema := hcldec.ImpliedSchema(spec)
	for _, m := range metaArgs {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: m})
	}
	s := &kindSpec{spec: spec, schema: schema}
	s.attrs, s.attrsOnly = specAttrs(spec)
	s.decoding = attrDecoding(spec)
	if p.specs == nil {
		p.specs = map[string]*kindSpec{}
	}
	p.specs[k.Name()] = s
	return s
}
