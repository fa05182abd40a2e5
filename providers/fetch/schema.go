package fetch

import (
	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the fetch block: the loader decodes with its Spec, and the
// reference is written from it.
var blockSchema = &schema.Block{
	Name:    "fetch",
	Labels:  []string{"name"},
	Summary: "a pinned HTTP(S) download, or a Hugging Face repository's files at a pinned revision",
	Doc: `A download lands in a partial file under .kiln/fetch/partial/ and moves into the output folder only once its checksum is verified; an interrupted download resumes where it stopped (Range requests). There is no total timeout: a transfer fails only when no byte arrives for stall_timeout. Archives (.tar, .tar.gz, .tgz, .tar.xz, .txz, .zip) unpack safely with extract = true: no absolute names, no "..", no symlink escaping the output folder.

Without a checksum the first download's sha256 is recorded in kiln.lock.hcl and reported loudly; a later download that differs fails. A huggingface block lists the repository at its revision and downloads the matching files to out/ORG/NAME, each checked against the hub's sha256 or git blob id. The live status shows the bytes, rate and ETA of a download.`,
	Example: `fetch "tokenizer" {
  url      = "https://example.org/tokenizer.tar.gz"
  checksum = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
  extract  = true
}

fetch "qwen" {
  huggingface {
    repo     = "Qwen/Qwen2.5-7B-Instruct"
    revision = "a09a35458c702b33eeacc393d103063234e8bc28"
    files    = ["*.json", "*.safetensors"]
  }
}`,
	Attrs: []schema.Attr{
		{Name: "url", Type: cty.String, Key: schema.KeyValue,
			Doc:     "The http:// or https:// URL to download. Set url or a huggingface block.",
			Example: `"https://example.org/data/train.csv"`},
		{Name: "checksum", Type: cty.String, DefaultDoc: "the first download's, kept in kiln.lock.hcl", Key: schema.KeyValue,
			Doc:     `The expected digest, "sha256:HEX". A mismatch fails the node and discards the bytes.`,
			Example: `"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"`},
		{Name: "filename", Type: cty.String, DefaultDoc: "the last element of the URL's path", Key: schema.KeyValue,
			Doc:     "The file's name in the output folder (a plain name, no slash).",
			Example: `"train.csv"`},
		{Name: "extract", Type: cty.Bool, DefaultDoc: "false", Key: schema.KeyValue,
			Doc:     "Unpack the archive into the output folder instead of keeping the file; path then names the folder.",
			Example: `true`},
		{Name: "max_bytes", Type: cty.Number, DefaultDoc: "no limit (an archive unpacks to at most 100 times its size, or 4 GiB if that is more)", Key: schema.KeyValue,
			Doc:     "The most bytes a download may have (for a huggingface block, all its files together) and an archive may unpack to; more fails the node and deletes the partial file.",
			Example: `20e9`},
		{Name: "stall_timeout", Type: cty.String, DefaultDoc: schema.DurationText(defaultStallTimeout), Key: schema.KeyValue,
			Doc:     "Fail when no byte arrives for this long (a Go duration). There is no total timeout.",
			Example: `"5m"`},
		{Name: "headers", Type: cty.Map(cty.String), Key: schema.KeyValue,
			Doc:     "HTTP headers sent with the download. Their values enter the key: pass secrets with env(), which keys only their hash.",
			Example: `{ Authorization = "Bearer ${env("DATA_TOKEN")}" }`},
	},
	Blocks: []*schema.Block{{
		Name:    "huggingface",
		Summary: "the files of a Hugging Face model or dataset repository at a pinned revision, downloaded to out/ORG/NAME",
		Attrs: []schema.Attr{
			{Name: "repo", Type: cty.String, Required: true, Key: schema.KeyValue,
				Doc: "The repository, ORG/NAME.", Example: `"Qwen/Qwen2.5-7B-Instruct"`},
			{Name: "revision", Type: cty.String, Required: true, Key: schema.KeyValue,
				Doc: "The full 40-hex commit of the repository.", Example: `"a09a35458c702b33eeacc393d103063234e8bc28"`},
			{Name: "kind", Type: cty.String, DefaultDoc: `"model"`, Key: schema.KeyValue,
				Doc: `"model" or "dataset".`, Example: `"dataset"`},
			{Name: "files", Type: cty.List(cty.String), DefaultDoc: "every file", Key: schema.KeyValue,
				Doc: "fnmatch patterns of the files to download, as huggingface_hub's allow_patterns.", Example: `["*.json", "*.safetensors", "*.txt"]`},
			{Name: "endpoint", Type: cty.String, DefaultDoc: `"https://huggingface.co"`, Key: schema.KeyValue,
				Doc: "The hub's base URL, for a mirror.", Example: `"https://hf-mirror.com"`},
			{Name: "token_env", Type: cty.String, Key: schema.KeyValue,
				Doc: "The environment variable holding an access token; only its name enters the key, and the token is only ever sent in an Authorization header.", Example: `"HF_TOKEN"`},
		},
	}},
	Exports: []schema.Export{
		{Name: "path", Type: cty.String, Doc: "the downloaded file, the extracted folder, or out/ORG/NAME of a Hugging Face repository"},
		{Name: "checksum", Type: cty.String, Doc: "the pinned checksum (known after the first download when none is written)"},
	},
}

// Schema describes the fetch block.
func (f *Fetch) Schema() *schema.Block { return blockSchema }
