package toolchain

import (
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the toolchain block: the loader decodes with its Spec, and
// the reference is written from it.
var blockSchema = &schema.Block{
	Name:    "toolchain",
	Labels:  []string{"name"},
	Summary: "an environment captured from setup scripts (CANN's set_env.sh), guarded by a version probe that must match",
	Doc: `At plan time kiln only reads the version (a key=value file, or a command's output) and hashes the setup scripts, never sourcing anything; a missing script or a version mismatch marks the toolchain, and every node that uses it, as unable to run here, naming the file and what to install. The found version and the scripts' digests enter the key, so an upgraded toolkit rebuilds what uses it.

A build sources the scripts in order with bash and keeps the variables they changed; nodes that set toolchain = toolchain.NAME get them in their processes' environment.`,
	Example: `toolchain "cann" {
  setup   = ["/usr/local/Ascend/ascend-toolkit/set_env.sh"]
  version = "8.3.RC1"
}`,
	Attrs: []schema.Attr{
		{Name: "setup", Type: cty.List(cty.String), Required: true, Key: schema.KeyFiles,
			Doc: "Scripts sourced in order (relative to the pipeline folder); their contents enter the key (files they source in turn count through the version).", Example: `["/usr/local/Ascend/ascend-toolkit/set_env.sh", "/usr/local/Ascend/nnal/atb/set_env.sh"]`},
		{Name: "version", Type: cty.String, Required: true, Key: schema.KeyValue,
			Doc: "The version the probe must find.", Example: `"8.3.RC1"`},
		{Name: "env_extra", Type: cty.Map(cty.String), Key: schema.KeyValue,
			Doc: "Variables set after the scripts ran, as plain assignments.", Example: `{ ASCEND_GLOBAL_LOG_LEVEL = "3" }`},
	},
	Blocks: []*schema.Block{{
		Name:    "probe",
		Summary: "how the version is read: a key=value file (the default), or a command and a pattern",
		Attrs: []schema.Attr{
			{Name: "file", Type: cty.String, DefaultDoc: `"` + DefaultProbeFile + `"`, Key: schema.KeyValue,
				Doc: `A key=value file holding the version; "<arch>" stands for the machine's architecture (uname -m).`, Example: `"/opt/cann/version.info"`},
			{Name: "key", Type: cty.String, DefaultDoc: `"version"`, Key: schema.KeyValue,
				Doc: "The key of the version in file.", Example: `"Version"`},
			{Name: "command", Type: cty.List(cty.String), Key: schema.KeyValue,
				Doc: "A command whose output holds the version, instead of file.", Example: `["gcc", "--version"]`},
			{Name: "pattern", Type: cty.String, Key: schema.KeyValue,
				Doc: "With command: a regular expression with one group around the version.", Example: `"gcc \\(.*\\) ([0-9.]+)"`},
		},
	}},
	Exports: []schema.Export{
		{Name: "env", Type: cty.Map(cty.String), Doc: "the captured variables (known once built)"},
		{Name: "version", Type: cty.String, Doc: "the declared version"},
	},
}

// Schema describes the toolchain block.
func (t *Toolchain) Schema() *schema.Block { return blockSchema }
