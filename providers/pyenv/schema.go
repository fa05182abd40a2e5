package pyenv

import (
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the python_env block: the loader decodes with its Spec,
// and the reference is written from it.
var blockSchema = &schema.Block{
	Name:    "python_env",
	Labels:  []string{"name"},
	Summary: "a virtualenv built in place by ordered install steps, then checked against constraints",
	Doc: `Each install block is one pip invocation, run in the order written, so a later step's pins win; constraints then prove they did, and a violation names the package, the installed and required versions and the step that last changed it. pip check runs too (pip_check). pip never reads pip.conf: index settings belong in the node, where they enter the key.

The digest is the interpreter's version and the sorted pip freeze --all, so the same distributions give the same digest wherever the venv was built; an environment changed outside kiln is found and rebuilt.`,
	Example: `python_env "train" {
  python = "python3.10"
  install { requirements = ["requirements.txt"] }
  install { packages = ["torch==2.7.1", "ray==2.47.1"] }
  install {
    editable = [git_repo.verl.out]
    no_deps  = true
  }
  constraints = ["torch==2.7.1", "ray"]
}`,
	Attrs: []schema.Attr{
		{Name: "python", Type: cty.String, Default: cty.StringVal("python3"), Key: schema.KeyValue,
			Doc: "The interpreter the venv is made from (3.8 or newer): a name on the node's PATH or a path. kiln runs it when it plans; its major.minor version is in the key, so another minor version rebuilds the venv.", Example: `"python3.10"`},
		{Name: "index_url", Type: cty.String, Key: schema.KeyValue,
			Doc: "pip's --index-url.", Example: `"https://pypi.org/simple"`},
		{Name: "extra_index_urls", Type: stringList, Key: schema.KeyValue,
			Doc: "pip's --extra-index-url, in order.", Example: `["https://download.pytorch.org/whl/cpu/"]`},
		{Name: "find_links", Type: stringList, Key: schema.KeyValue,
			Doc: "pip's --find-links: folders or URLs of wheels.", Example: `["wheels/"]`},
		{Name: "no_index", Type: cty.Bool, Default: cty.False, Key: schema.KeyValue,
			Doc: "pip's --no-index: install only from find_links and wheels.", Example: `true`},
		{Name: "system_site_packages", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyValue,
			Doc: "Make the venv with --system-site-packages, so it sees the interpreter's own site-packages (a vendor image's preinstalled torch and torch_npu) and pip leaves what they satisfy alone. kiln lists them when it plans: every distribution the interpreter sees, with its version, is in the key, so a changed image rebuilds the venv; pip freeze, and so the digest, includes them. Unset, it is not in the key.", Example: `true`},
		{Name: "constraints", Type: stringList, Key: schema.KeyValue,
			Doc: "Requirements the finished venv must meet (a name, or a name with specifiers such as ==, >=, ~=); checked after every step ran.", Example: `["torch==2.7.1", "ray"]`},
		{Name: "absent", Type: stringList, Key: schema.KeyValue,
			Doc: "Distributions the finished venv must not hold (triton on Ascend); checked with constraints, naming the step that installed one.", Example: `["triton"]`},
		{Name: "pip_check", Type: cty.String, Default: cty.StringVal("error"), Key: schema.KeyValue,
			Doc: `What pip check's complaints do: "error" fails the build, "warn" logs them and keeps them in state, "off" skips the check.`, Example: `"warn"`},
	},
	Blocks: []*schema.Block{{
		Name:     "install",
		Repeated: true,
		Summary:  "one pip install step; steps run in the order written",
		Attrs: []schema.Attr{
			{Name: "requirements", Type: stringList, Key: schema.KeyFiles,
				Doc: "Requirements files (-r); their contents, and the files they include with -r or -c, enter the key.", Example: `["${git_repo.verl.out}/requirements-npu.txt"]`},
			{Name: "packages", Type: stringList, Key: schema.KeyValue,
				Doc: "Requirement specifiers.", Example: `["torch==2.7.1", "torchvision==0.22.1"]`},
			{Name: "editable", Type: stringList, Key: schema.KeyValue,
				Doc: "Folders installed with -e. An upstream node's output enters the key by its digest; the contents of any other folder do not: name its files in inputs.", Example: `[git_repo.vllm.out]`},
			{Name: "wheels", Type: stringList, Key: schema.KeyFiles,
				Doc: "Local wheel files or globs; the files' contents enter the key.", Example: `["${exec.build_wheel.out}/*.whl"]`},
			{Name: "no_deps", Type: cty.Bool, Default: cty.False, Key: schema.KeyValue,
				Doc: "pip's --no-deps.", Example: `true`},
			{Name: "no_build_isolation", Type: cty.Bool, Default: cty.False, Key: schema.KeyValue,
				Doc: "pip's --no-build-isolation: build against what the venv already holds.", Example: `true`},
			{Name: "env", Type: cty.Map(cty.String), Key: schema.KeyValue,
				Doc: "Environment variables for this step only.", Example: `{ VLLM_TARGET_DEVICE = "empty" }`},
			{Name: "extra_args", Type: stringList, Key: schema.KeyValue,
				Doc: "More arguments for pip install.", Example: `["--pre"]`},
			{Name: "uninstall", Type: stringList, Key: schema.KeyValue,
				Doc: "Distributions to remove with pip uninstall --yes, instead of installing anything (one not installed is skipped); the step does nothing else.", Example: `["triton"]`},
		},
	}},
	Exports: []schema.Export{
		{Name: "python", Type: cty.String, Doc: "the venv's interpreter, under the node's stable path"},
		{Name: "bin", Type: cty.String, Doc: "the venv's bin folder"},
		{Name: "site_packages", Type: cty.String, Doc: "the venv's site-packages folder (known once built)"},
	},
}

// Schema describes the python_env block.
func (*PythonEnv) Schema() *schema.Block { return blockSchema }
