package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
)

func TestExecutorsAndCache(t *testing.T) {
	p, diags := load(t, `
variable "executor" { default = "slurm" }
locals { part = "a2" }

executor "slurm" "a2" {
  partition = local.part
  account   = "llm"
  qos       = "high"
  gres      = "gpu"
  shared    = "/shared/jobs"
  flags     = ["--exclusive"]
  max_jobs  = 4
  requeue   = 2
  poll      = "500ms"

  array_size   = 50
  submit_ahead = false
}

cache {
  url  = "http://127.0.0.1:8080"
  push = false
}

exec "train" {
  command  = "x"
  executor = var.executor
  slurm {
    nodes           = 2
    ntasks_per_node = 1
    cpus_per_task   = 16
    mem             = "64G"
  }
}
exec "prep" { 
  command = "y"
  cache   = false
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := &Executor{Type: "slurm", Name: "a2", Partition: "a2", Account: "llm", QOS: "high", GRES: "gpu", Shared: "/shared/jobs",
		Flags: []string{"--exclusive"}, MaxJobs: 4, ArraySize: 50, Requeue: 2, Poll: 500 * time.Millisecond}
	if diff := cmp.Diff(want, p.Executors["slurm.a2"], cmpopts.IgnoreFields(Executor{}, "DeclRange")); diff != "" {
		t.Errorf("executor (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&Cache{URL: "http://127.0.0.1:8080", Pull: true}, p.Cache, cmpopts.IgnoreFields(Cache{}, "DeclRange")); diff != "" {
		t.Errorf("cache (-want +got):\n%s", diff)
	}
	train := p.Node(addr.Node{Kind: "exec", Name: "train"})
	if train.Meta.Executor != "slurm.a2" {
		t.Errorf("exec.train runs on %q, want slurm.a2 (the only Slurm executor)", train.Meta.Executor)
	}
	if diff := cmp.Diff(&SlurmJob{Nodes: 2, NTasksPerNode: 1, CPUsPerTask: 16, Mem: "64G"}, train.Meta.Slurm); diff != "" {
		t.Errorf("slurm block (-want +got):\n%s", diff)
	}
	prep := p.Node(addr.Node{Kind: "exec", Name: "prep"})
	if prep.Meta.Executor != "" || !prep.Meta.NoCache {
		t.Errorf("exec.prep: executor %q, no cache %v; want local and no cache", prep.Meta.Executor, prep.Meta.NoCache)
	}
}

func TestCacheTrustAndLimits(t *testing.T) {
	p, diags := load(t, `
cache {
  url           = "http://127.0.0.1:8080"
  trusted_keys  = ["ci-1:zcNTJJsa6/CYHjObjIyUw8bWhkcA9fFFzpf4QvJe+/U="]
  signing_key   = "keys/ci-1.key"
  stall_timeout = "5s"
  min_rate      = 0
}
`, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := &Cache{URL: "http://127.0.0.1:8080", Push: true, Pull: true, TrustedKeys: []string{"ci-1:zcNTJJsa6/CYHjObjIyUw8bWhkcA9fFFzpf4QvJe+/U="},
		SigningKey: "keys/ci-1.key", StallTimeout: 5 * time.Second, MinRate: 0, MinRateSet: true}
	if diff := cmp.Diff(want, p.Cache, cmpopts.IgnoreFields(Cache{}, "DeclRange")); diff != "" {
		t.Errorf("cache (-want +got):\n%s", diff)
	}
}

func TestDefaultExecutor(t *testing.T) {
	src := `
executor "slurm" "a2" { default = true }
exec "a" { command = "x" }
exec "b" { 
  command  = "x"
  executor = "local"
}
`
	p, diags := load(t, src, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	for _, n := range p.Nodes {
		got[n.Addr.String()] = n.Meta.Executor
	}
	if diff := cmp.Diff(map[string]string{"exec.a": "slurm.a2", "exec.b": ""}, got); diff != "" {
		t.Errorf("executors (-want +got):\n%s", diff)
	}
	// With no executor block, "slurm" is Slurm with its own defaults.
	p, diags = load(t, "exec \"a\" {\n command = \"x\"\n executor = \"slurm\"\n}\n", Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	n := p.Nodes[0]
	if n.Meta.Executor != "slurm" || p.Executor(n.Meta.Executor).GRES != "npu" {
		t.Errorf("bare slurm: %q %+v", n.Meta.Executor, p.Executor(n.Meta.Executor))
	}
}

func TestExecutorErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unknown", "exec \"a\" {\n command = \"x\"\n executor = \"slrum.a2\"\n}\nexecutor \"slurm\" \"a2\" {}", `Did you mean "slurm.a2"?`},
		{"ambiguous", "executor \"slurm\" \"a\" {}\nexecutor \"slurm\" \"b\" {}\nexec \"x\" {\n command = \"x\"\n executor = \"slurm\"\n}", "could mean slurm.a or slurm.b"},
		{"two defaults", "executor \"slurm\" \"a\" { default = true }\nexecutor \"slurm\" \"b\" { default = true }", "both say default = true"},
		{"unknown type", `executor "kubernetes" "k" {}`, `executor type "kubernetes" is not known`},
		{"relative shared", `executor "slurm" "a" { shared = "jobs" }`, "absolute folder"},
		{"bad poll", `executor "slurm" "a" { poll = "often" }`, "not a duration"},
		{"two caches", "cache { url = \"http://a\" }\ncache { url = \"http://b\" }", "one cache block"},
		{"unknown cache attribute", `cache { uri = "http://a" }`, "Unsupported argument"},
		{"negative max_jobs", `executor "slurm" "a" { max_jobs = -1 }`, "zero or more"},
		{"an array of no instances", `executor "slurm" "a" { array_size = 0 }`, "array_size is from 1 (no arrays)"},
		{"secret key trusted", `cache {
  url          = "http://a"
  trusted_keys = ["ci-1:RQlPOB1CghXgRfsa7VuqTbN4WEE6kBzPNI49vtgw60zNw1Mkmxrr8JgeM5uMjJTDxtaGRwD18UXOl/hC8l779Q=="]
}`, "is it the secret key?"},
		{"trusted key without name", `cache { trusted_keys = ["zcNTJJsa6/CYHjObjIyUw8bWhkcA9fFFzpf4QvJe+/U="] }`, "want NAME:BASE64"},
		{"bad stall_timeout", `cache { stall_timeout = "soon" }`, "not a duration"},
		{"negative min_rate", `cache { min_rate = -1 }`, "zero or more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := load(t, c.src, Options{})
			if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
				t.Errorf("diagnostics %v, want one saying %q", diags, c.want)
			}
			for _, d := range diags {
				if d.Severity == hcl.DiagError && d.Subject == nil {
					t.Errorf("diagnostic without a source range: %v", d)
				}
			}
		})
	}
}
