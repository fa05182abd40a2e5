package config

import (
	"sort"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// The engine's own blocks, as data: the loader takes its body schemas from
// them (metaArgs, decodeVariable, decodeOutput, the executor and cache
// blocks), and kiln help and docs/language.md are written from the same
// values.

var anyType = cty.DynamicPseudoType

// MetaArguments are the arguments (and the slurm block) valid in every node
// block, whatever its kind.
var MetaArguments = &schema.Block{
	Name:    "meta-arguments",
	Summary: "arguments the engine takes in every node block, whatever its kind",
	Attrs: []schema.Attr{
		{Name: "for_each", Type: anyType, TypeDoc: "map or set", Key: schema.KeyNo,
			Doc:     "One instance per element, addressed KIND.NAME[\"KEY\"]; each.key and each.value in the block. Each instance's configuration is keyed on its own. for_each = exec.map, another for_each block, gives one instance per instance of it, each.value that instance. It may read another node's result (fileset, glob_wildcards, listfile, file): the instances are then known once that node has run.",
			Example: `{ small = 64, large = 512 }`},
		{Name: "count", Type: cty.Number, Key: schema.KeyNo,
			Doc:     "N instances, addressed KIND.NAME[I]; count.index in the block. Like for_each, it may read another node's result.",
			Example: `4`},
		{Name: "depends_on", Type: anyType, TypeDoc: "list of node addresses", Key: schema.KeyDigests,
			Doc:     "Run after these nodes, and key on their digests, without using a value of theirs; exec.map[each.key] names one instance.",
			Example: `[service.sandbox, exec.prepare]`},
		{Name: "inputs", Type: cty.List(cty.String), Key: schema.KeyInputs,
			Doc:     "Files, folders and globs (** for any depth) whose contents enter the key, relative to the pipeline folder. A missing file, or a glob matching nothing, stops that node (the plan says it cannot run, apply fails it and skips what depends on it); the rest of the pipeline plans and runs. An input that another node writes in place (its outputs), or a folder or glob that holds one, makes that node a dependency by itself, and is hashed only once it ran. An input inside an upstream's output folder is not hashed: that upstream's digest is in the key. Symlinks are followed (an input that is one, one inside an input folder, one a glob matches): the key holds each link's text and the digest of what it leads to; a symlink loop, a device, a FIFO or a socket is refused, and a link that dangles is a missing input.",
			Example: `["train.py", "configs/", "src/**/*.py"]`},
		{Name: "resources", Type: cty.Map(cty.Number), Key: schema.KeyNo,
			Doc:     "Amounts held while the node runs, against the pools (see Pools; -resource npu=8 on the command line). The command reads what it was given from $KILN_CPUS (1 when cpu is not set), $KILN_MEM_MB and ${self.resources.NAME}; none of it enters the key, so changing a thread count reruns nothing. More cpu or mem_mb than the machine has is scaled down to what it has, with a warning. A node asking for N of a device pool (npu, gpu) gets N device ids of its own, in the pool's variable (ASCEND_RT_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES); one asking for more of a pool than it holds cannot run here. Each amount is a whole number from 0 to 10^12.",
			Example: `{ npu = 8 }`},
		{Name: "timeout", Type: cty.String, DefaultDoc: "none", Key: schema.KeyNo,
			Doc:     "Stop the node's process group after this long (SIGTERM, then SIGKILL), and fail it; at most \"2562047h\" (about 292 years).",
			Example: `"2h"`},
		{Name: "retries", Type: cty.Number, DefaultDoc: "0", Key: schema.KeyNo,
			Doc:     "Run again up to N times after a failure: a whole number from 0 to 100.",
			Example: `2`},
		{Name: "always_run", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyNo,
			Doc:     "Run on every apply, even when up to date.",
			Example: `true`},
		{Name: "resumable", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyNo,
			Doc:     "An interrupted run keeps its output folder, and the next apply runs the command again in it (the plan says resume, and in which folder, even right after a killed apply), so a trainer's own checkpoint resume applies. The command sees KILN_RESUME=1 when it runs again in such a folder (0 on a first run) and KILN_ATTEMPT, the attempt's number: nanoGPT's --init_from=$([ $KILN_RESUME = 1 ] && echo resume || echo scratch); verl's trainer.resume_mode=auto needs neither. -replace starts over in a fresh folder, discarding what the interrupted run left.",
			Example: `true`},
		{Name: "deterministic", Type: cty.Bool, DefaultDoc: "true", Key: schema.KeyNo,
			Doc:     "false: kiln apply -check reports a different result instead of failing (training).",
			Example: `false`},
		{Name: "host", Type: anyType, TypeDoc: "host node address", Key: schema.KeyDigests,
			Doc:     "The node needs this host: the host's required facts enter the key, and where they are unmet the node cannot run here.",
			Example: `host.a2`},
		{Name: "toolchain", Type: anyType, TypeDoc: "toolchain node address", Key: schema.KeyDigests,
			Doc:     "The toolchain's captured environment is added to the node's processes; its digest enters the key.",
			Example: `toolchain.cann`},
		{Name: "env_prepend", Type: anyType, TypeDoc: "map of a path or a list of paths", Key: schema.KeyValue,
			Doc:     "Extend variables the host or the toolchain set (PATH, PYTHONPATH, LD_LIBRARY_PATH, ASCEND_*) instead of replacing them: the paths go before the variable's value, joined with \":\"; a variable that is not set gets the paths alone, and empty paths are left out. A kind's own env may not also set the variable.",
			Example: `{ PYTHONPATH = [git_repo.verl.out] }`},
		{Name: "env_append", Type: anyType, TypeDoc: "map of a path or a list of paths", Key: schema.KeyValue,
			Doc:     "As env_prepend, with the paths after the variable's value.",
			Example: `{ LD_LIBRARY_PATH = "/usr/local/Ascend/driver/lib64" }`},
		{Name: "progress", Type: cty.String, Key: schema.KeyNo,
			Doc:     "A regular expression whose first group reads a step number from the node's log lines, for the live status and its ETA.",
			Example: `"step:(\\d+)"`},
		{Name: "total", Type: cty.Number, Key: schema.KeyNo,
			Doc:     "The last step progress counts to, for a percentage and an ETA: a whole number from 0 to 10^15.",
			Example: `372`},
		{Name: "executor", Type: cty.String, DefaultDoc: `"local", or the pipeline's default executor`, Key: schema.KeyNo,
			Doc:     `Where the node runs: "local", "slurm", or an executor block's slurm.NAME. Only exec nodes run elsewhere.`,
			Example: `"slurm.a2"`},
		{Name: "cache", Type: cty.Bool, DefaultDoc: "true", Key: schema.KeyNo,
			Doc:     "false: never pull this node's result from, or push it to, the pipeline's remote cache.",
			Example: `false`},
		{Name: "temp", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyNo,
			Doc:     "The result is removed from the store once every node that depends on it has a result built from it (its record stays, so nothing downstream reruns), and rebuilt only when one of them must run again; the plan lists it as \"temp: removed, rebuilt if needed\".",
			Example: `true`},
		{Name: "sandbox", Type: cty.DynamicPseudoType, TypeDoc: `bool or "report"`, DefaultDoc: "true", Key: schema.KeyNo,
			Doc:     "false runs the node's processes unconfined: they may write anywhere the user may and read the whole pipeline folder. Give the reason in sandbox_reason; plan and report show it. \"report\" keeps writes sealed but lets the runs read all of the pipeline folder, under strace, and apply names each file they read there without declaring it, with the inputs line to add: a way to port a pipeline before sealing it. Only exec and service nodes are sealed (see Sealed runs).",
			Example: `false`},
		{Name: "sandbox_reason", Type: cty.String, Key: schema.KeyNo,
			Doc:     "Why the node runs with sandbox = false: required with it.",
			Example: `"installs the CANN toolkit under /usr/local/Ascend"`},
		{Name: "shell", Type: cty.List(cty.String), DefaultDoc: `["bash", "-euo", "pipefail", "-c"], or ["/bin/sh", "-eu", "-c"] without bash`, Key: schema.KeyValue,
			Doc:     "The program and arguments a string command is appended to, in exec and service nodes; it overrides the pipeline's kiln { shell }. It is a key line: changing it reruns the node.",
			Example: `["/bin/sh", "-c"]`},
		{Name: "protect", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyNo,
			Doc:     "Once built, the result is never replaced: an apply that would rebuild, repair or restore another result over it stops at the node unless -replace names it, and the plan says so. It does not rely on file permissions, so it holds for root too. Terraform's spelling, lifecycle { prevent_replace = true }, is the same.",
			Example: `true`},
	},
	Blocks: []*schema.Block{{
		Name:    "lifecycle",
		Summary: "Terraform's spelling of protect",
		Attrs: []schema.Attr{
			{Name: "prevent_replace", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyNo, Doc: "true is protect = true.", Example: `true`},
		},
	}, {
		Name:    "slurm",
		Summary: "the shape of the node's Slurm job (executor = \"slurm...\")",
		Attrs: []schema.Attr{
			{Name: "nodes", Type: cty.Number, Key: schema.KeyNo, Doc: "sbatch --nodes.", Example: `2`},
			{Name: "ntasks_per_node", Type: cty.Number, Key: schema.KeyNo, Doc: "sbatch --ntasks-per-node.", Example: `1`},
			{Name: "cpus_per_task", Type: cty.Number, Key: schema.KeyNo, Doc: "sbatch --cpus-per-task.", Example: `32`},
			{Name: "mem", Type: cty.String, Key: schema.KeyNo, Doc: "sbatch --mem.", Example: `"512G"`},
			{Name: "flags", Type: cty.List(cty.String), Key: schema.KeyNo, Doc: "More sbatch flags.", Example: `["--exclusive"]`},
		},
	}, {
		Name:    "metrics",
		Summary: "training metrics read from the node's log lines, for kiln report (it does not enter the key: adding or changing it reruns nothing)",
		Attrs: []schema.Attr{
			{Name: "format", Type: cty.String, Key: schema.KeyNo,
				Doc: `"verl": verl's console logger, "step:N - key:value - key:value ...", each value a Python number as pprint.pformat writes it, anywhere in the line; "jsonl": one JSON object per line with a whole-number step, nested objects as outer/inner keys.`, Example: `"verl"`},
			{Name: "patterns", Type: cty.List(cty.String), Key: schema.KeyNo,
				Doc: "Regular expressions (Go syntax) whose named groups are values; a group named step is the step, and without one a pattern's matches are numbered 1, 2, 3. A format and patterns may be combined.", Example: `["iter (?P<step>\\d+) loss (?P<loss>\\S+)"]`},
			{Name: "step", Type: cty.String, DefaultDoc: `"step"`, Key: schema.KeyNo,
				Doc: "For jsonl: the key holding the step.", Example: `"global_step"`},
			{Name: "keys", Type: cty.List(cty.String), DefaultDoc: "every key", Key: schema.KeyNo,
				Doc: "Keep only the metrics whose names match one of these globs (* matches any text, / included).", Example: `["critic/*", "actor/entropy"]`},
		},
	}},
}

// VariableBlock is `variable "NAME" { ... }`.
var VariableBlock = &schema.Block{
	Name:    "variable",
	Labels:  []string{"name"},
	Summary: "an input of the pipeline, var.NAME",
	Doc:     "Values come from the default, KILN_VAR_NAME, -var-file (HCL, .json or .yaml) and -var NAME=VALUE, in increasing precedence. An object variable can be refined one attribute at a time: -var NAME.ATTR=VALUE.",
	Example: `variable "train" {
  type    = object({ n_est = number, depth = number })
  default = { n_est = 100, depth = 6 }
  validation {
    condition     = var.train.depth > 0
    error_message = "depth must be positive."
  }
}`,
	Attrs: []schema.Attr{
		{Name: "type", Type: anyType, TypeDoc: "type expression", DefaultDoc: "any",
			Doc: "The type values are converted to: string, number, bool, list(T), map(T), object({...}), any.", Example: `list(string)`},
		{Name: "default", Type: anyType, TypeDoc: "any", DefaultDoc: "none: a value must be given",
			Doc: "The value when none is given.", Example: `["a", "b"]`},
		{Name: "description", Type: cty.String, Doc: "What the variable is for.", Example: `"Where the datasets live"`},
		{Name: "sensitive", Type: cty.Bool, DefaultDoc: "false",
			Doc: "Keys, state and explain show only a hash of the value.", Example: `true`},
	},
	Blocks: []*schema.Block{{
		Name:     "validation",
		Repeated: true,
		Summary:  "a condition the value must meet",
		Attrs: []schema.Attr{
			{Name: "condition", Type: cty.Bool, Required: true, Doc: "An expression over var.NAME that must be true.", Example: `length(var.name) > 0`},
			{Name: "error_message", Type: cty.String, Required: true, Doc: "The message when it is false.", Example: `"name must not be empty."`},
		},
	}},
}

// LocalsBlock is `locals { NAME = EXPR ... }`.
var LocalsBlock = &schema.Block{
	Name:     "locals",
	Summary:  "named values, local.NAME",
	Doc:      "Any number of NAME = EXPR attributes, in any number of locals blocks. A local that references a node makes every node that uses it depend on that node.",
	FreeForm: true,
	Example: `locals {
  soc     = "ASCEND910B1"
  dataset = "${fetch.data.path}/train.parquet"
}`,
}

// OutputBlock is `output "NAME" { ... }`.
var OutputBlock = &schema.Block{
	Name:    "output",
	Labels:  []string{"name"},
	Summary: "a value printed after kiln apply, and by kiln output",
	Example: `output "checkpoint" {
  value = "${exec.train.out}/checkpoint"
}`,
	Attrs: []schema.Attr{
		{Name: "value", Type: anyType, TypeDoc: "any", Required: true, Doc: "The value; it may reference nodes.", Example: `exec.train.out`},
		{Name: "description", Type: cty.String, Doc: "What the output is.", Example: `"The trained model"`},
		{Name: "sensitive", Type: cty.Bool, DefaultDoc: "false", Doc: "Hide the value in apply's and kiln output's text (not in -json or -raw).", Example: `true`},
	},
}

// ExecutorBlock is `executor "slurm" "NAME" { ... }`.
var ExecutorBlock = &schema.Block{
	Name:    "executor",
	Labels:  []string{"type", "name"},
	Summary: "a Slurm cluster that nodes with executor = \"slurm.NAME\" run on, as batch jobs",
	Doc:     "The only type is slurm. Attributes must be known when the pipeline loads (variables and locals, no node attributes).",
	Example: `executor "slurm" "a2" {
  partition = "npu"
  shared    = "/shared/kiln"
  max_jobs  = 16
}`,
	Attrs: []schema.Attr{
		{Name: "partition", Type: cty.String, Doc: "sbatch --partition.", Example: `"npu"`},
		{Name: "account", Type: cty.String, Doc: "sbatch --account.", Example: `"ml"`},
		{Name: "qos", Type: cty.String, Doc: "sbatch --qos.", Example: `"high"`},
		{Name: "gres", Type: cty.String, DefaultDoc: `"npu"`, Doc: "The generic resource a node's npu or gpu resources are asked as.", Example: `"gpu"`},
		{Name: "shared", Type: cty.String, DefaultDoc: ".kiln/slurm", Doc: "An absolute folder the compute nodes see at the same path, for each job's files.", Example: `"/shared/kiln"`},
		{Name: "flags", Type: cty.List(cty.String), Doc: "More sbatch flags.", Example: `["--exclusive"]`},
		{Name: "max_jobs", Type: cty.Number, DefaultDoc: "no limit", Doc: "The most jobs submitted and unfinished at once.", Example: `16`},
		{Name: "array_size", Type: cty.Number, DefaultDoc: "1000", Doc: "The most instances of one for_each or count block submitted as one array job (sbatch --array), when they are ready together; 1 submits every instance as a job of its own. Each element counts against max_jobs as a job.", Example: `500`},
		{Name: "submit_ahead", Type: cty.Bool, DefaultDoc: "true", Doc: "Queue a node whose upstreams are Slurm jobs of the same apply as soon as they are submitted (sbatch --dependency=afterok), so that its queue wait overlaps their run; kiln hands it its node once they have succeeded, and cancels it when one fails or its result turns out to be up to date.", Example: `false`},
		{Name: "requeue", Type: cty.Number, DefaultDoc: "1", Doc: "Resubmissions after NODE_FAIL or PREEMPTED.", Example: `3`},
		{Name: "poll", Type: cty.String, DefaultDoc: `"2s"`, Doc: "Time between squeue calls.", Example: `"10s"`},
		{Name: "kiln", Type: cty.String, DefaultDoc: "this kiln binary", Doc: "The kiln binary as the compute nodes see it.", Example: `"/shared/bin/kiln"`},
		{Name: "default", Type: cty.Bool, DefaultDoc: "false", Doc: "Exec nodes run here unless they say otherwise.", Example: `true`},
	},
}

// CacheBlock is `cache { ... }`.
var CacheBlock = &schema.Block{
	Name:    "cache",
	Summary: "a remote cache in Bazel's HTTP layout that results are pulled from and pushed to",
	Example: `cache {
  url = "http://cache.internal:8080"
}`,
	Attrs: []schema.Attr{
		{Name: "url", Type: cty.String, Doc: "The cache's base URL (/ac/KEY for records, /cas/SHA256 for blobs).", Example: `"http://cache.internal:8080"`},
		{Name: "push", Type: cty.Bool, DefaultDoc: "true", Doc: "Upload results built here.", Example: `false`},
		{Name: "pull", Type: cty.Bool, DefaultDoc: "true", Doc: "Restore results found there instead of building.", Example: `false`},
		{Name: "trusted_keys", Type: cty.List(cty.String), DefaultDoc: "any record is pulled",
			Doc: "Public keys (NAME:BASE64, as kiln cache keygen prints them); when set, only records signed by one of them are pulled, and a host with no signing key pushes nothing.", Example: `["ci-1:Wz2K...="]`},
		{Name: "signing_key", Type: cty.String, DefaultDoc: "KILN_CACHE_SIGNING_KEY, else none",
			Doc: "The secret key file (kiln cache keygen) that every pushed record is signed with; a relative path is taken from the pipeline folder. KILN_CACHE_SIGNING_KEY names one instead.", Example: `"/etc/kiln/ci-1.key"`},
		{Name: "stall_timeout", Type: cty.String, DefaultDoc: `"30s"`,
			Doc: "A record or blob transfer that waits this long on the server for a byte is given up, and the node built here; a record must arrive whole within twice this.", Example: `"1m"`},
		{Name: "min_rate", Type: cty.Number, DefaultDoc: "10240",
			Doc: "Bytes a second a transfer must move, over every stall_timeout of waiting on the server, or it is given up and the node built here; 0: no minimum.", Example: `102400`},
	},
}

// MovedBlock is `moved { from = ..., to = ... }`.
var MovedBlock = &schema.Block{
	Name:    "moved",
	Summary: "a rename: what kiln recorded of KIND.OLD (state record, timings, logs, stable link, lock entry) belongs to KIND.NEW from the next apply on",
	Doc:     "from must no longer be declared and to must be; it is an error when to already has a state record. A move with nothing recorded under from (in the state or kiln.lock.hcl) does nothing: once moved, or on a fresh checkout with no .kiln, the block may stay. Moving a block without an instance key moves every instance.",
	Example: `moved {
  from = exec.featurize
  to   = exec.features
}`,
	Attrs: []schema.Attr{
		{Name: "from", Type: anyType, TypeDoc: "node address", Required: true, Doc: "The old address.", Example: `exec.featurize`},
		{Name: "to", Type: anyType, TypeDoc: "node address", Required: true, Doc: "The new address.", Example: `exec.features`},
	},
}

// SettingsBlock is `kiln { ... }`.
var SettingsBlock = &schema.Block{
	Name:    "kiln",
	Summary: "settings of the pipeline",
	Example: `kiln {
  strict_lock = true
}`,
	Attrs: []schema.Attr{
		{Name: "strict_lock", Type: cty.Bool, DefaultDoc: "false",
			Doc: "A build that does not reproduce the digest kiln.lock.hcl records under the same key is an error (as apply -strict), not a warning.", Example: `true`},
		{Name: "shell", Type: cty.List(cty.String), DefaultDoc: `["bash", "-euo", "pipefail", "-c"], or ["/bin/sh", "-eu", "-c"] without bash`,
			Doc: "The program and arguments every string command of exec and service nodes is appended to, unless a node sets its own shell. It is a key line of each of those nodes.", Example: `["bash", "-eo", "pipefail", "-c"]`},
	},
}

// PoolBlock is `pool "NAME" { ... }`.
var PoolBlock = &schema.Block{
	Name:    "pool",
	Labels:  []string{"name"},
	Summary: "a resource pool whose units are devices with ids (NPUs, GPUs): which ids, the variable that tells a node its own, and how they are grouped",
	Doc:     "NAME is the resource as nodes ask for it (resources = { npu = 4 }). Attributes must be known when the pipeline loads (literals, variables, locals that use no node). -resource NAME=IDS overrides devices; see Pools.",
	Example: `pool "npu" {
  groups = [[0, 1, 2, 3], [4, 5, 6, 7]]
}`,
	Attrs: []schema.Attr{
		{Name: "devices", Type: anyType, TypeDoc: "string or list(number)", DefaultDoc: "npu: the devices the host node reports",
			Doc: "The pool's device ids: ranges in a string, or a list of numbers.", Example: `"0-3,6"`},
		{Name: "env", Type: cty.String, DefaultDoc: "npu: ASCEND_RT_VISIBLE_DEVICES, gpu: CUDA_VISIBLE_DEVICES, others: none",
			Doc: `The variable a node's processes find their device ids in, comma-separated; "" hands out ids without setting a variable.`, Example: `"CUDA_VISIBLE_DEVICES"`},
		{Name: "groups", Type: anyType, TypeDoc: "list(list(number))", DefaultDoc: "one group of all",
			Doc: "Devices that belong together (a host whose interconnect is split): a node asking for no more than a group gets ids within one, a larger one takes whole groups. Ids in no group form one more group; ids the pool lacks are dropped.", Example: `[[0, 1, 2, 3], [4, 5, 6, 7]]`},
	},
}

// LanguageBlocks are the top-level blocks that are not node kinds.
func LanguageBlocks() []*schema.Block {
	return []*schema.Block{VariableBlock, LocalsBlock, OutputBlock, SettingsBlock, MovedBlock, ExecutorBlock, CacheBlock, PoolBlock}
}

// Reference is the language with the given node kinds: what kiln help and
// docs/language.md describe. Kinds that do not describe themselves
// (kind.Documented) are listed by name only.
func Reference(kinds []kind.Kind) *schema.Reference {
	ref := &schema.Reference{Meta: MetaArguments, Blocks: LanguageBlocks(), Functions: Functions()}
	for _, k := range kinds {
		b := &schema.Block{Name: k.Name(), Labels: []string{"name"}}
		if d, ok := k.(kind.Documented); ok {
			b = d.Schema()
		}
		ref.Kinds = append(ref.Kinds, b)
	}
	sort.Slice(ref.Kinds, func(i, j int) bool { return ref.Kinds[i].Name < ref.Kinds[j].Name })
	return ref
}
