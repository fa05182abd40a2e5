package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/kilnbuild/kiln/engine"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/render"
)

type showArgs struct {
	json    bool
	noColor bool
}

func showFlags() (*flag.FlagSet, *showArgs) {
	a := &showArgs{}
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.BoolVar(&a.json, "json", false, "print as JSON: a saved plan in the plan -json schema, a record as the state holds it")
	fs.BoolVar(&a.noColor, "no-color", false, "do not colour the output (also: NO_COLOR=1)")
	return fs, a
}

func init() {
	flagSets["show"] = func() *flag.FlagSet { fs, _ := showFlags(); return fs }
	register(&command{name: "show", summary: "show a saved plan, a node's record, or every record",
		usage: "kiln show [-json] [PLANFILE | ADDR] [-- PATH]\n\nPLANFILE is a file written by kiln plan -out; ADDR a node address; with\nneither, every node the state records.", run: runShow})
}

func runShow(c *cli, args []string) int {
	fs, a := showFlags()
	args, path := splitPathAfterDashes(args)
	pos, err := parse(fs, args)
	if err == nil && len(pos) > 1 {
		err = fmt.Errorf("give one plan file or node address, got %d (a pipeline path goes after --)", len(pos))
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln show:", err)
		return 1
	}
	if len(pos) == 1 && engine.IsPlanFile(pos[0]) {
		return showPlan(c, a, pos[0])
	}
	var want *addr.Node
	if len(pos) == 1 {
		n, err := addr.Parse(pos[0])
		if err != nil {
			fmt.Fprintf(c.stderr, "kiln show: %s is neither a plan file (kiln plan -out FILE writes one) nor a node address: %v\n", pos[0], err)
			return 1
		}
		want = &n
	}
	s, ok := c.loadState(path)
	if !ok {
		return 1
	}
	if want != nil {
		r := s.Records[want.String()]
		if r == nil {
			var names []string
			for _, r := range s.Sorted() {
				names = append(names, r.Addr)
			}
			fmt.Fprintf(c.stderr, "kiln show: nothing recorded for %s%s (kiln state list shows what is)\n", want, didYouMean(want.String(), names))
			return 1
		}
		if a.json {
			writeJSON(c, r)
			return 0
		}
		render.Record(c.stdout, r)
		return 0
	}
	records := s.Sorted()
	if a.json {
		writeJSON(c, struct {
			Records []*engine.Record `json:"records"`
		}{records})
		return 0
	}
	render.Records(c.stdout, records)
	return 0
}

func showPlan(c *cli, a *showArgs, file string) int {
	sp, err := engine.LoadPlan(file)
	var m render.PlanJSON
	if err == nil {
		err = json.Unmarshal(sp.View, &m)
	}
	if err != nil {
		c.fail(err)
		return 1
	}
	if a.json {
		writeJSON(c, &m)
		return 0
	}
	fmt.Fprintf(c.stdout, "Saved plan of %s\n\n", sp.Path)
	render.PlanText(c.stdout, &m, c.colours(a.noColor))
	return 0
}
