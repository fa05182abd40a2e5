package config

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/remotecache"
	"github.com/zclconf/go-cty/cty"
)

// LocalExecutor is the name of the executor that runs nodes in kiln's own process
// tree.
const LocalExecutor = "local"

// Executor is an `executor "slurm" "NAME"` block: where and how nodes that
// name it run as Slurm batch jobs.
type Executor struct {
	Type      string // "slurm"
	Name      string
	Partition string
	Account   string
	QOS       string
	// GRES is the generic resource the node's accelerator resource (npu,
	// or gpu) is asked as: "npu" on Ascend clusters, "gpu" elsewhere.
	GRES string
	// Shared is the folder, visible from the compute nodes, that holds each
	// job's spec, script, output and result. Empty: STATE/slurm.
	Shared    string
	Flags     []string      // extra sbatch flags
	MaxJobs   int           // most jobs submitted and not finished at once; 0: no limit
	ArraySize int           // most instances of a block in one array job; 1: no arrays
	Ahead     bool          // queue nodes after their upstreams' jobs (--dependency=afterok)
	Requeue   int           // resubmissions after NODE_FAIL or PREEMPTED
	Poll      time.Duration // between squeue calls
	Kiln      string        // the kiln binary as compute nodes see it; empty: this one
	Default   bool          // nodes of portable kinds run here unless they say otherwise
	DeclRange hcl.Range
}

// maxArraySize bounds array_size: Slurm's own MaxArraySize is 1001 unless
// a site raises it, to at most 4,000,001.
const maxArraySize = 100000

// Address is how nodes name the executor: slurm.NAME.
func (e *Executor) Address() string { return e.Type + "." + e.Name }

// Cache is the pipeline's `cache` block: a remote cache in Bazel's HTTP
// layout that results are pulled from and pushed to.
type Cache struct {
	URL  string
	Push bool
	Pull bool
	// TrustedKeys, when not empty, are the only keys (NAME:BASE64) whose
	// signed records are pulled.
	TrustedKeys []string
	// SigningKey is the file of the key pushed records are signed with,
	// absolute or from the pipeline folder; KILN_CACHE_SIGNING_KEY
	// replaces it.
	SigningKey string
	// StallTimeout and MinRate bound how slowly a transfer may move
	// (0: remotecache.DefaultLimits).
	StallTimeout time.Duration
	MinRate      int64
	MinRateSet   bool // min_rate was given (0 turns the minimum off)
	DeclRange    hcl.Range
}

// SlurmJob is a node's own `slurm { ... }` block: the shape of its job.
type SlurmJob struct {
	Nodes         int
	NTasksPerNode int
	CPUsPerTask   int
	Mem           string
	Flags         []string
}

// The body schemas come from the documented blocks (language.go).
var (
	executorSchema = ExecutorBlock.BodySchema()
	cacheSchema    = CacheBlock.BodySchema()
	slurmJobSchema = MetaArguments.Nested("slurm").BodySchema()
)

// decodeScaleOut evaluates the executor and cache blocks, which may use
// variables and locals that reference no node.
func (p *Pipeline) decodeScaleOut() hcl.Diagnostics {
	var diags hcl.Diagnostics
	if len(p.executorBlocks) == 0 && len(p.cacheBlocks) == 0 {
		return nil
	}
	ctx := p.staticContext()
	p.Executors = map[string]*Executor{}
	var defaults []*Executor
	for _, b := range p.executorBlocks {
		if b.Labels[0] != "slurm" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported executor type",
				Detail: fmt.Sprintf("executor type %q is not known; kiln has \"slurm\" (and the built-in local executor).", b.Labels[0]), Subject: b.LabelRanges[0].Ptr()})
			continue
		}
		e := &Executor{Type: "slurm", Name: b.Labels[1], GRES: "npu", ArraySize: 1000, Ahead: true, Requeue: 1, Poll: 2 * time.Second, DeclRange: b.DefRange}
		if !hclIdent(e.Name) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid executor name", Detail: fmt.Sprintf("%q is not a valid name: use letters, digits, underscores and dashes.", e.Name), Subject: b.LabelRanges[1].Ptr()})
			continue
		}
		if prev, ok := p.Executors[e.Address()]; ok {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate executor", Detail: fmt.Sprintf("executor %s is already declared at %s.", e.Address(), prev.DeclRange), Subject: b.DefRange.Ptr()})
			continue
		}
		content, d := b.Body.Content(executorSchema)
		diags = append(diags, d...)
		a := content.Attributes
		diags = append(diags, staticString(ctx, a["partition"], &e.Partition)...)
		diags = append(diags, staticString(ctx, a["account"], &e.Account)...)
		diags = append(diags, staticString(ctx, a["qos"], &e.QOS)...)
		diags = append(diags, staticString(ctx, a["gres"], &e.GRES)...)
		diags = append(diags, staticString(ctx, a["shared"], &e.Shared)...)
		diags = append(diags, staticString(ctx, a["kiln"], &e.Kiln)...)
		diags = append(diags, staticList(ctx, a["flags"], &e.Flags)...)
		diags = append(diags, staticInt(ctx, a["max_jobs"], &e.MaxJobs)...)
		diags = append(diags, staticInt(ctx, a["array_size"], &e.ArraySize)...)
		diags = append(diags, staticBool(ctx, a["submit_ahead"], &e.Ahead)...)
		diags = append(diags, staticInt(ctx, a["requeue"], &e.Requeue)...)
		diags = append(diags, staticDuration(ctx, a["poll"], &e.Poll)...)
		diags = append(diags, staticBool(ctx, a["default"], &e.Default)...)
		if a["array_size"] != nil && (e.ArraySize < 1 || e.ArraySize > maxArraySize) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid array_size", Detail: fmt.Sprintf("array_size is from 1 (no arrays) to %d instances in one sbatch --array; Slurm's MaxArraySize bounds it too.", maxArraySize), Subject: a["array_size"].Expr.Range().Ptr()})
		}
		if e.Shared != "" && !strings.HasPrefix(e.Shared, "/") {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid shared", Detail: "shared is an absolute folder that the compute nodes see at the same path.", Subject: a["shared"].Expr.Range().Ptr()})
		}
		p.Executors[e.Address()] = e
		if e.Default {
			defaults = append(defaults, e)
		}
	}
	if len(defaults) > 1 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Two default executors", Detail: fmt.Sprintf("executors %s and %s both say default = true; keep one.", defaults[0].Address(), defaults[1].Address()), Subject: defaults[1].DeclRange.Ptr()})
	} else if len(defaults) == 1 {
		p.DefaultExecutor = defaults[0].Address()
	}
	for i, b := range p.cacheBlocks {
		if i > 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate cache block", Detail: fmt.Sprintf("a pipeline has one cache block; the first is at %s.", p.cacheBlocks[0].DefRange), Subject: b.DefRange.Ptr()})
			continue
		}
		c := &Cache{Push: true, Pull: true, DeclRange: b.DefRange}
		content, d := b.Body.Content(cacheSchema)
		diags = append(diags, d...)
		a := content.Attributes
		diags = append(diags, staticString(ctx, a["url"], &c.URL)...)
		diags = append(diags, staticBool(ctx, a["push"], &c.Push)...)
		diags = append(diags, staticBool(ctx, a["pull"], &c.Pull)...)
		diags = append(diags, staticList(ctx, a["trusted_keys"], &c.TrustedKeys)...)
		diags = append(diags, staticString(ctx, a["signing_key"], &c.SigningKey)...)
		diags = append(diags, staticDuration(ctx, a["stall_timeout"], &c.StallTimeout)...)
		var rate int
		diags = append(diags, staticInt(ctx, a["min_rate"], &rate)...)
		c.MinRate, c.MinRateSet = int64(rate), a["min_rate"] != nil
		for _, k := range c.TrustedKeys {
			if _, err := remotecache.ParsePublicKey(k); err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid trusted key", Detail: err.Error() + "; kiln cache keygen prints a public key to put here.", Subject: a["trusted_keys"].Expr.Range().Ptr()})
			}
		}
		p.Cache = c
	}
	return diags
}

// resolveExecutor settles which executor runs n: what the node says, else
// the pipeline's default for portable kinds, else local. "slurm" alone
// names the only Slurm executor (or the default one); with no executor
// block at all it is a Slurm executor with Slurm's defaults.
func (p *Pipeline) resolveExecutor(n *Node, said string, rng *hcl.Range) hcl.Diagnostics {
	portable := kind.IsPortable(n.Block.Kind)
	if said == "" {
		if p.DefaultExecutor != "" && portable {
			n.Meta.Executor = p.DefaultExecutor
		}
		return nil
	}
	if said == LocalExecutor {
		n.Meta.Executor = ""
		return nil
	}
	if !portable {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unsupported executor", Detail: fmt.Sprintf("%s nodes run on the host kiln runs on; only exec nodes take executor = %q.", n.Block.Kind.Name(), said), Subject: rng}}
	}
	if said == "slurm" {
		var slurm []string
		for name := range p.Executors {
			if strings.HasPrefix(name, "slurm.") {
				slurm = append(slurm, name)
			}
		}
		sort.Strings(slurm)
		switch {
		case len(slurm) == 0:
			n.Meta.Executor = "slurm"
		case len(slurm) == 1:
			n.Meta.Executor = slurm[0]
		case p.DefaultExecutor != "":
			n.Meta.Executor = p.DefaultExecutor
		default:
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Ambiguous executor", Detail: fmt.Sprintf("executor = \"slurm\" could mean %s; name one, like executor = %q.", strings.Join(slurm, " or "), slurm[0]), Subject: rng}}
		}
		return nil
	}
	if _, ok := p.Executors[said]; ok {
		n.Meta.Executor = said
		return nil
	}
	var known []string
	for name := range p.Executors {
		known = append(known, name)
	}
	known = append(known, LocalExecutor, "slurm")
	sort.Strings(known)
	hint := ""
	if s := human.Closest(said, known); s != "" {
		hint = fmt.Sprintf(" Did you mean %q?", s)
	}
	return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown executor", Detail: fmt.Sprintf("executor %q is not declared.%s Declare it with an executor \"slurm\" \"NAME\" block, or use \"local\" or \"slurm\".", said, hint), Subject: rng}}
}

// Executor returns the executor block a node's Meta.Executor names; nil for
// local, and a block with Slurm's defaults for a bare "slurm".
func (p *Pipeline) Executor(name string) *Executor {
	if name == "" || name == LocalExecutor {
		return nil
	}
	if e, ok := p.Executors[name]; ok {
		return e
	}
	return &Executor{Type: "slurm", Name: "", GRES: "npu", ArraySize: 1000, Ahead: true, Requeue: 1, Poll: 2 * time.Second}
}

func decodeSlurmJob(ctx *hcl.EvalContext, b *hcl.Block) (*SlurmJob, hcl.Diagnostics) {
	content, diags := b.Body.Content(slurmJobSchema)
	j := &SlurmJob{}
	a := content.Attributes
	diags = append(diags, staticInt(ctx, a["nodes"], &j.Nodes)...)
	diags = append(diags, staticInt(ctx, a["ntasks_per_node"], &j.NTasksPerNode)...)
	diags = append(diags, staticInt(ctx, a["cpus_per_task"], &j.CPUsPerTask)...)
	diags = append(diags, staticString(ctx, a["mem"], &j.Mem)...)
	diags = append(diags, staticList(ctx, a["flags"], &j.Flags)...)
	return j, diags
}

func staticValue(ctx *hcl.EvalContext, a *hcl.Attribute, target any) hcl.Diagnostics {
	v, diags := a.Expr.Value(ctx)
	if diags.HasErrors() {
		return diags
	}
	v, _ = v.UnmarkDeep()
	if !v.IsWhollyKnown() || v.IsNull() {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name, Detail: a.Name + " must be known when the pipeline loads (variables and locals are; node attributes are not).", Subject: a.Expr.Range().Ptr()}}
	}
	return gohcl.DecodeExpression(&hclsyntax.LiteralValueExpr{Val: v, SrcRange: a.Expr.Range()}, nil, target)
}

func staticString(ctx *hcl.EvalContext, a *hcl.Attribute, s *string) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	return staticValue(ctx, a, s)
}

func staticList(ctx *hcl.EvalContext, a *hcl.Attribute, s *[]string) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	return staticValue(ctx, a, s)
}

func staticBool(ctx *hcl.EvalContext, a *hcl.Attribute, b *bool) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	return staticValue(ctx, a, b)
}

func staticInt(ctx *hcl.EvalContext, a *hcl.Attribute, i *int) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	var f *big.Float
	var v cty.Value
	if d := staticValue(ctx, a, &v); d.HasErrors() {
		return d
	}
	if v.Type() != cty.Number {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name, Detail: a.Name + " is a whole number.", Subject: a.Expr.Range().Ptr()}}
	}
	f = v.AsBigFloat()
	n, acc := f.Int64()
	if acc != big.Exact || n < 0 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name, Detail: a.Name + " is a whole number, zero or more.", Subject: a.Expr.Range().Ptr()}}
	}
	*i = int(n)
	return nil
}

func staticDuration(ctx *hcl.EvalContext, a *hcl.Attribute, d *time.Duration) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	var s string
	if diags := staticValue(ctx, a, &s); diags.HasErrors() {
		return diags
	}
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid " + a.Name, Detail: fmt.Sprintf("%q is not a duration; write it like \"2s\" or \"1m\".", s), Subject: a.Expr.Range().Ptr()}}
	}
	*d = v
	return nil
}
