// Command kiln plans and applies content-hashed pipelines described in HCL.
// Each command lives in its own file: it parses its flags into a struct,
// calls the engine and hands the result to a view in engine/render. It
// imports no node kind's package: the kinds come from the providers
// registry (providers.All), and what it asks of a kind goes through the
// optional interfaces of engine/kind.
//
// Environment: NO_COLOR turns colour off (so does TERM=dumb); KILN_VAR_name
// sets a variable; KILN_CEILING_DIRECTORIES stops the upward search for a
// pipeline below the folders it lists; KILN_HEARTBEAT=DURATION sets how
// often apply reports a silent node without a terminal (30s); KILN_DEBUG_KEY=1 prints every key
// computed with its lines; KILN_NO_QUICK=1 makes plan and apply skip the
// memo (engine/memo); KILN_DEBUG_PLAN=1 says why the quick answers were
// or were not used, and KILN_PLAN_VERIFY=1 checks each one against the full
// plan (verify.go) and each node evaluated without HCL against HCL's
// evaluation (engine/config, direct.go); KILN_CPUPROFILE=FILE writes a CPU profile of the
// command and KILN_MEMPROFILE=FILE a heap profile taken as it ends;
// KILN_MAX_INSTANCES=N bounds the instances of a for_each or count
// that reads another node's result (default 100,000); KILN_CACHE_URL names
// the remote cache instead of the pipeline's cache block, with
// KILN_CACHE_TOKEN, or KILN_CACHE_USERNAME and KILN_CACHE_PASSWORD, as its
// credentials. GOGC is 200 unless the environment sets it, a plan keeps a
// soft memory limit of twice the live heap, at least 160 MiB, and an apply
// one of twice the live heap, at least 48 MiB, collecting at GOGC 25 while
// its nodes run, unless GOGC or GOMEMLIMIT is set (heap.go).
package main
