package service

import (
	"time"

	"github.com/kilnbuild/kiln/engine/schema"
	"github.com/zclconf/go-cty/cty"
)

// blockSchema is the service block: the loader decodes with its Spec, and
// the reference is written from it.
var blockSchema = &schema.Block{
	Name:    "service",
	Labels:  []string{"name"},
	Summary: "a long-running process (a code-execution sandbox, a data server) that other nodes use while it runs",
	Doc: `kiln starts the command detached (it outlives kiln; output goes to service.log in its output folder), waits for it to be ready, runs each check once, and records the process. The command must stay in the foreground: a process that exits before it is ready fails the node.

A running, healthy service with an unchanged key is reused; one that is down, unhealthy or changed is started again (the plan's ^). Its digest is a hash of its configuration, so a restart with the same configuration does not rebuild what uses it. kiln destroy stops it.

A list command names its program, found as exec finds it: on the PATH the service's processes get (a toolchain's variables, env_prepend and env_append, then env), a relative path or PATH folder taken from dir. The program is found when kiln plans — one found nowhere blocks the service there — and its resolved path enters the key, with the file's digest when it lies inside the pipeline folder, so another program under the same name starts the service again.

Readiness: the ready block's HTTP probe when it has a url; otherwise a TCP connect to port (on url's host, 127.0.0.1 by default). With neither ready block nor port, the service is ready once started.`,
	Example: `service "sandbox" {
  command = ["uvicorn", "sandbox.server.server:app", "--port", "8080"]
  port    = 8080
  ready {
    url      = "http://127.0.0.1:8080/v1/ping"
    contains = "pong"
    timeout  = "120s"
  }
}`,
	Attrs: []schema.Attr{
		{Name: "command", Type: cty.DynamicPseudoType, TypeDoc: "string or list(string)", Required: true, Key: schema.KeyValue,
			Doc: "What to run: a list runs directly, a string with /bin/sh -c. It must not daemonize.", Example: `["uvicorn", "app:app", "--port", "8080"]`},
		{Name: "dir", Type: cty.String, DefaultDoc: "the node's output folder", Key: schema.KeyValue,
			Doc: "The folder the command runs in, relative to the pipeline folder.", Example: `git_repo.sandbox.out`},
		{Name: "env", Type: cty.Map(cty.String), Key: schema.KeyValue,
			Doc: "Environment variables added to the minimal environment.", Example: `{ WORKERS = "4" }`},
		{Name: "url", Type: cty.String, Key: schema.KeyValue,
			Doc: "Where the service answers; exported as service.NAME.url for other nodes.", Example: `"http://127.0.0.1:8080"`},
		{Name: "port", Type: cty.Number, Key: schema.KeyValue,
			Doc: "The TCP port it listens on: without a ready url, readiness is a TCP connect to it.", Example: `8080`},
	},
	Blocks: []*schema.Block{
		{Name: "ready", Summary: "the readiness probe: polled until it passes or times out", Attrs: probeAttrs(defaultReadyTimeout)},
		{Name: "check", Repeated: true, Summary: "a post-start check, run once after ready; a failure fails the node", Attrs: probeAttrs(defaultCheckTimeout)},
		{Name: "stop", Summary: "how kiln destroy (or a restart) stops the service", Attrs: []schema.Attr{
			{Name: "signal", Type: cty.String, DefaultDoc: `"SIGTERM"`, Key: schema.KeyValue,
				Doc: "The signal sent to the service's process group.", Example: `"SIGINT"`},
			{Name: "command", Type: cty.DynamicPseudoType, TypeDoc: "string or list(string)", Key: schema.KeyValue,
				Doc: "A command run instead of the signal.", Example: `["curl", "-X", "POST", "http://127.0.0.1:8080/shutdown"]`},
			{Name: "grace", Type: cty.String, DefaultDoc: schema.DurationText(defaultStopGrace), Key: schema.KeyValue,
				Doc: "How long to wait before SIGKILL.", Example: `"30s"`},
		}},
	},
	Exports: []schema.Export{
		{Name: "url", Type: cty.String, Doc: "the url attribute (null when unset)"},
		{Name: "log", Type: cty.String, Doc: "the service's log file"},
		{Name: "pid", Type: cty.Number, Doc: "the process id (known once started)"},
	},
}

// probeAttrs are the attributes of a ready or check block.
func probeAttrs(timeout time.Duration) []schema.Attr {
	return []schema.Attr{
		{Name: "url", Type: cty.String, DefaultDoc: "a TCP probe of port (ready only)", Key: schema.KeyValue,
			Doc: "The URL to request.", Example: `"http://127.0.0.1:8080/v1/ping"`},
		{Name: "method", Type: cty.String, DefaultDoc: `"GET"`, Key: schema.KeyValue,
			Doc: "The HTTP method.", Example: `"POST"`},
		{Name: "body", Type: cty.String, Key: schema.KeyValue,
			Doc: "The request body.", Example: `jsonencode({ code = "print(1)", language = "python" })`},
		{Name: "headers", Type: cty.Map(cty.String), Key: schema.KeyValue,
			Doc: "Request headers.", Example: `{ "Content-Type" = "application/json" }`},
		{Name: "status", Type: cty.Number, DefaultDoc: "200", Key: schema.KeyValue,
			Doc: "The status the answer must have.", Example: `204`},
		{Name: "contains", Type: cty.String, Key: schema.KeyValue,
			Doc: "Text the answer's body must contain.", Example: `"pong"`},
		{Name: "json", Type: cty.Map(cty.String), Key: schema.KeyValue,
			Doc: "Values the JSON answer must hold, by dotted path.", Example: `{ status = "Success", "run_result.stdout" = "1\n" }`},
		{Name: "interval", Type: cty.String, DefaultDoc: schema.DurationText(defaultInterval), Key: schema.KeyValue,
			Doc: "Time between attempts.", Example: `"1s"`},
		{Name: "timeout", Type: cty.String, DefaultDoc: schema.DurationText(timeout), Key: schema.KeyValue,
			Doc: "How long to keep trying.", Example: `"120s"`},
	}
}

// Schema describes the service block.
func (s *Service) Schema() *schema.Block { return blockSchema }
