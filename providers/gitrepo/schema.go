package gitrepo

import (
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the git_repo block: the loader decodes with its Spec, and
// the reference is written from it.
var blockSchema = &schema.Block{
	Name:    "git_repo",
	Labels:  []string{"name"},
	Summary: "a checkout of a git repository at one full commit, with ordered patches, submodules and Git LFS files",
	Doc: `kiln fetches the commit shallowly into a mirror under .kiln/git/ (a second checkout of the same commit never fetches again), checks it out detached, and applies the patches in order with git apply; HEAD and the index stay at the commit. Git runs without system or user configuration and never prompts.

The digest is the commit, the tree id of the patched working tree and the patches' digests, so a checkout modified outside kiln is found and repaired. A ref (branch or tag) is resolved once and pinned in kiln.lock.hcl; kiln lock -update re-resolves it.

kiln plan finds the programs a build runs on the node's PATH: git, git-lfs with lfs = true, and GNU patch when there are patches (it applies those git apply refuses, which is known only after checkout); a missing one marks the node as unable to run here, naming its package.`,
	Example: `git_repo "verl" {
  url     = "https://github.com/volcengine/verl.git"
  commit  = "d62da4950573d7a4b7ef2362337952e7ab59e78d" # v0.6.1
  patches = ["patches/verl/retool.patch"]
}`,
	Attrs: []schema.Attr{
		{Name: "url", Type: cty.String, Required: true, Key: schema.KeyValue,
			Doc:     "The repository: https, ssh, git@host:path, file:// or a local path (relative to the pipeline folder).",
			Example: `"https://github.com/volcengine/verl.git"`},
		{Name: "commit", Type: cty.String, DefaultDoc: "resolved from ref", Key: schema.KeyValue,
			Doc:     "The full 40-hex commit to check out. Set commit or ref, not both.",
			Example: `"d62da4950573d7a4b7ef2362337952e7ab59e78d"`},
		{Name: "ref", Type: cty.String, Key: schema.KeyValue,
			Doc:     "A branch or tag, resolved to a commit once and pinned in kiln.lock.hcl; the key then names the commit, so a moving branch changes nothing until kiln lock -update.",
			Example: `"v0.6.1"`},
		{Name: "patches", Type: cty.List(cty.String), Key: schema.KeyFiles,
			Doc:     "Patch files applied in order with git apply after checkout; their contents enter the key.",
			Example: `["patches/verl/retool.patch", "patches/verl/agent_loop.patch"]`},
		{Name: "submodules", Type: cty.Bool, Default: cty.False, Key: schema.KeyValue,
			Doc:     "Check out the submodules recursively at the commits the checkout records (fetched from the network, relative urls resolved against url).",
			Example: `true`},
		{Name: "lfs", Type: cty.Bool, Default: cty.False, Key: schema.KeyValue,
			Doc:     "Fetch and check out Git LFS files (needs git-lfs on the node's PATH).",
			Example: `true`},
	},
	Exports: []schema.Export{
		{Name: "commit", Type: cty.String, Doc: "the checked-out commit (known at plan time when commit is set)"},
		{Name: "url", Type: cty.String, Doc: "the repository url"},
	},
}

// Schema describes the git_repo block.
func (r *Repo) Schema() *schema.Block { return blockSchema }
