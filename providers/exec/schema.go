package exec

import (
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the exec block: the loader decodes with its Spec, and the
// reference is written from it.
var blockSchema = &schema.Block{
	Name:    "exec",
	Labels:  []string{"name"},
	Summary: "runs a command that writes its result into its own output folder ($KILN_OUT) or declared outputs",
	Doc: `The command runs in dir with a minimal environment (PATH, HOME, LANG, TMPDIR and the like) plus env and a toolchain's captured variables, and its own output folder in $KILN_OUT (self.out in HCL). It runs in its own process group: on Ctrl-C or a timeout the group gets SIGTERM, then SIGKILL after a grace period.

A list command names its program: the program is found on the node's PATH when kiln plans, and its resolved path enters the key, with the file's digest when the program lies inside the pipeline folder. A string command runs with /bin/sh -c: kiln keys its text only, not the programs it calls or the files they read; name those files in inputs, or use a list.`,
	Example: `exec "train" {
  command = ["python3", "train.py", "--out", self.out]
  inputs  = ["train.py", "data/train.csv"]
  env     = { OMP_NUM_THREADS = "4" }
}`,
	Attrs: []schema.Attr{
		{Name: "command", Type: cty.DynamicPseudoType, TypeDoc: "string or list(string)", Required: true, Key: schema.KeyValue,
			Doc:     "What to run: a string runs with /bin/sh -c; a list runs directly, its first element looked up on the node's PATH.",
			Example: `["python3", "train.py", "--epochs", "3"]`},
		{Name: "dir", Type: cty.String, DefaultDoc: "the pipeline folder", Key: schema.KeyValue,
			Doc:     "The folder the command runs in, relative to the pipeline folder; it must exist.",
			Example: `git_repo.verl.out`},
		{Name: "env", Type: cty.Map(cty.String), Key: schema.KeyValue,
			Doc:     "Environment variables added to the minimal environment (they win over a toolchain's).",
			Example: `{ HOME = self.out, OMP_NUM_THREADS = "4" }`},
		{Name: "outputs", Type: cty.List(cty.String), Key: schema.KeyValue,
			Doc:     "Files or folders the command writes in place instead of in $KILN_OUT: hashed into the node's digest and guarded against drift. A path is the output of one node only.",
			Example: `["build/model.bin"]`},
	},
}

// Schema describes the exec block.
func (*Kind) Schema() *schema.Block { return blockSchema }
