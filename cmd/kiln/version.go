package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/render"
)

func versionFlags() (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the version as a JSON object")
	return fs, asJSON
}

func init() {
	flagSets["version"] = func() *flag.FlagSet { fs, _ := versionFlags(); return fs }
	register(&command{name: "version", summary: "print kiln's version", usage: "kiln version [-json]", run: runVersion})
}

// versionJSON is what kiln version -json prints; its field names are stable.
type versionJSON struct {
	Version    string `json:"version"`
	Go         string `json:"go"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	KeyFormat  string `json:"key_format"`
	PlanFormat string `json:"plan_format"`
}

func runVersion(c *cli, args []string) int {
	fs, asJSON := versionFlags()
	pos, err := parse(fs, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("takes no arguments but -json")
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln version:", err)
		return 1
	}
	v := versionJSON{Version: engine.Version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		KeyFormat: engine.KeyFormat, PlanFormat: render.PlanFormatVersion}
	if *asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
		return 0
	}
	fmt.Fprintf(c.stdout, "kiln %s (%s, %s/%s)\nkey format %s, plan JSON format %s\n", v.Version, v.Go, v.OS, v.Arch, v.KeyFormat, v.PlanFormat)
	return 0
}
