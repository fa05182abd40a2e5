package fetch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

const goodSum = "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"

// Configurations the kind refuses before any request, with what the error
// must say.
func TestBuildRefusesBadConfig(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"ftp scheme", `url = "ftp://127.0.0.1/x.bin"`, `scheme "ftp" is not supported`},
		{"file scheme", `url = "file:///etc/passwd"`, `scheme "file" is not supported`},
		{"no host", `url = "http:///x"`, "has no host"},
		{"neither form", `max_bytes = 10`, "set url"},
		{"md5 checksum", `
url = "http://127.0.0.1/x"
checksum = "md5:abc"`, "sha256:<64 hex digits>"},
		{"short checksum", `
url = "http://127.0.0.1/x"
checksum = "sha256:abc"`, "sha256:<64 hex digits>"},
		{"no file name", `url = "http://127.0.0.1/dir/"`, "set filename"},
		{"filename with slash", `
url = "http://127.0.0.1/x"
filename = "a/b"`, "single file name"},
		{"unknown archive", `
url = "http://127.0.0.1/x.rar"
extract = true`, "cannot tell the archive type"},
		{"bad stall", `
url = "http://127.0.0.1/x"
stall_timeout = "soon"`, "positive duration"},
		{"negative max_bytes", `
url = "http://127.0.0.1/x"
max_bytes = -1`, "whole number"},
		{"fractional max_bytes", `
url = "http://127.0.0.1/x"
max_bytes = 1.5`, "whole number"},
		{"url and huggingface", `
url = "http://127.0.0.1/x"
huggingface {
  repo = "a/b"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
}`, "remove them or the huggingface block"},
		{"revision neither commit nor branch", `
huggingface {
  repo = "a/b"
  revision = "../main"
}`, "neither a 40-hex commit SHA nor a branch or tag name"},
		{"upper-case commit", `
huggingface {
  repo = "a/b"
  revision = "A09A35458C702B33EEACC393D103063234E8BC28"
}`, "write the commit SHA in lower case"},
		{"repo without org", `
huggingface {
  repo = "gpt2"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
}`, "must be ORG/NAME"},
		{"repo climbing", `
huggingface {
  repo = "../etc"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
}`, "must be ORG/NAME"},
		{"bad hf kind", `
huggingface {
  repo = "a/b"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
  kind = "space"
}`, `"model" or "dataset"`},
		{"hf endpoint scheme", `
huggingface {
  repo = "a/b"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
  endpoint = "s3://mirror"
}`, `scheme "s3" is not supported`},
		{"bad glob", `
huggingface {
  repo = "a/b"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
  files = ["[abc"]
}`, "without its"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuild(t, t.TempDir(), decode(t, tt.body))
			_, err := build(t, &Fetch{}, b)
			if err == nil {
				t.Fatal("Build accepted the configuration")
			}
			contains(t, "error", err.Error(), tt.want, "fetch.x")
		})
	}
}

func TestBuildNeedsState(t *testing.T) {
	b := newBuild(t, "", decode(t, `url = "http://127.0.0.1/x"`))
	if _, err := build(t, &Fetch{}, b); err == nil {
		t.Fatal("Build ran without a state folder")
	}
}

func TestExports(t *testing.T) {
	unknown := cty.UnknownVal(cty.String)
	out := "/p/.kiln/out/fetch.x"
	tests := []struct {
		name   string
		config cty.Value
		want   map[string]cty.Value
	}{
		{
			name:   "pinned file",
			config: decodeT(`url = "https://h/d/model.bin"` + "\nchecksum = \"" + goodSum + `"`),
			want:   map[string]cty.Value{"path": cty.StringVal(out + "/model.bin"), "checksum": cty.StringVal(goodSum)},
		},
		{
			name:   "unpinned, renamed",
			config: decodeT("url = \"https://h/d/x?y=1\"\nfilename = \"w.bin\""),
			want:   map[string]cty.Value{"path": cty.StringVal(out + "/w.bin"), "checksum": unknown},
		},
		{
			name:   "extract",
			config: decodeT("url = \"https://h/d/a.tgz\"\nextract = true"),
			want:   map[string]cty.Value{"path": cty.StringVal(out), "checksum": unknown},
		},
		{
			name: "huggingface",
			config: decodeT(`huggingface {
  repo = "Qwen/Qwen2.5-7B-Instruct"
  revision = "a09a35458c702b33eeacc393d103063234e8bc28"
}`),
			want: map[string]cty.Value{"path": cty.StringVal(out + "/Qwen/Qwen2.5-7B-Instruct"), "checksum": unknown},
		},
		{
			name: "url not known yet",
			config: cty.ObjectVal(map[string]cty.Value{
				"url": unknown, "filename": cty.NullVal(cty.String), "extract": cty.NullVal(cty.Bool),
				"checksum": cty.NullVal(cty.String), "huggingface": cty.NullVal(cty.EmptyObject),
			}),
			want: map[string]cty.Value{"path": unknown, "checksum": unknown},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New().Exports(&kind.Node{Config: tt.config, Out: out})
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b cty.Value) bool { return a.RawEquals(b) })); diff != "" {
				t.Errorf("exports (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKindIdentity(t *testing.T) {
	k := New()
	if k.Name() != "fetch" || k.Version() == "" {
		t.Errorf("Name, Version = %q, %q", k.Name(), k.Version())
	}
}
