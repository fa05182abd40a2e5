package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/state"
)

// SavedPlanFormat names the format of the files kiln plan -out writes.
const SavedPlanFormat = "kiln-plan-2"

// earlierPlanFormats are the formats earlier kilns wrote: recognised, so
// such a file is refused as a plan and not loaded as a pipeline.
var earlierPlanFormats = []string{"kiln-plan-1"}

// SavedPlan is the file kiln plan -out writes and kiln apply FILE reads:
// what the plan was made from (the pipeline, a digest of its files and
// variables, the flags that change decisions), the state it was made
// against, each node's decision as apply checks it again, and the plan as
// plan -json prints it, for kiln show.
type SavedPlan struct {
	Format   string     `json:"format"`
	Path     string     `json:"pipeline"`
	Config   string     `json:"config_digest"`
	Stamp    StateStamp `json:"state"`
	Vars     []string   `json:"vars,omitempty"`
	VarFiles []string   `json:"var_files,omitempty"`
	Targets  []string   `json:"targets,omitempty"`
	Replace  []string   `json:"replace,omitempty"`
	// Resources are the -resource flags, so apply decides with the pools
	// the plan was made against.
	Resources []string `json:"resources,omitempty"`
	// Nodes are the plan's decisions, in its order.
	Nodes []SavedNode `json:"nodes"`
	// View is the plan as plan -json prints it; nothing is decided from it.
	View json.RawMessage `json:"plan"`
}

// SavedNode is one node's decision in a saved plan: what it was to do and
// the key it was to have, where the plan knew it.
type SavedNode struct {
	Address string `json:"address"`
	Action  string `json:"action"`
	Key     string `json:"key,omitempty"`
}

// savedNodes are the decisions of pl as a saved plan holds them.
func savedNodes(pl *Plan) []SavedNode {
	nodes := make([]SavedNode, 0, len(pl.Changes))
	for _, d := range pl.Changes {
		nodes = append(nodes, SavedNode{Address: d.Node.Addr.String(), Action: d.Action.Word(), Key: d.Key})
	}
	return nodes
}

// PlanFlags are the flags of kiln plan -out that change what apply decides,
// beside the variables the workspace was opened with.
type PlanFlags struct {
	Targets, Replace, Resources []string
}

// SavePlan writes pl to file as a SavedPlan of this workspace, atomically,
// with view (the plan -json model of pl) for kiln show.
func (w *Workspace) SavePlan(file string, f PlanFlags, pl *Plan, view any) error {
	raw, err := json.Marshal(view)
	if err != nil {
		return err
	}
	sp := SavedPlan{
		Format: SavedPlanFormat, Path: w.pipeline.Root, Config: w.ConfigDigest(), Stamp: w.Stamp(),
		Vars: w.VarFlags(), VarFiles: w.VarFiles(), Targets: f.Targets, Replace: f.Replace, Resources: f.Resources,
		Nodes: savedNodes(pl), View: raw,
	}
	b, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(file, append(b, '\n'), 0o644)
}

// LoadPlan reads a file SavePlan wrote.
func LoadPlan(file string) (*SavedPlan, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var sp SavedPlan
	if err := json.Unmarshal(b, &sp); err != nil || !isPlanFormat(sp.Format) {
		return nil, fmt.Errorf("%s is not a kiln plan file (make one with kiln plan -out %s)", file, file)
	}
	if sp.Format != SavedPlanFormat {
		return nil, fmt.Errorf("%s is a plan file of an earlier kiln (%s); make it again with kiln plan -out %s", file, sp.Format, file)
	}
	return &sp, nil
}

func isPlanFormat(f string) bool {
	return f == SavedPlanFormat || slices.Contains(earlierPlanFormats, f)
}

// IsPlanFile reports whether path is a file written by kiln plan -out. A
// saved plan is recognised by its content, so a pipeline written in HCL's
// JSON syntax still applies as a pipeline.
func IsPlanFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head struct {
		Format string `json:"format"`
	}
	return json.NewDecoder(f).Decode(&head) == nil && isPlanFormat(head.Format)
}

// CheckSavedPlan says, with an error wrapping ErrStalePlan, when applying
// now would not do what sp showed: the pipeline's files or variables
// changed, or a node's decision is different now (its key, where the plan
// knew it, because an input file, an upstream result or the machine
// changed; or what it is to do, because its result changed outside kiln),
// or the plan now has nodes sp did not. Apply checks the state sp was made
// against itself, under the apply lock (ApplyOptions.Expect).
func (w *Workspace) CheckSavedPlan(ctx context.Context, sp *SavedPlan) error {
	if w.ConfigDigest() != sp.Config {
		return fmt.Errorf("%w: the pipeline's files or variables changed since the plan was saved; run kiln plan -out again", ErrStalePlan)
	}
	pl, diags := w.Plan(ctx)
	if diags.HasErrors() {
		return fmt.Errorf("%w: the pipeline no longer plans (%s); run kiln plan -out again", ErrStalePlan, diags.Error())
	}
	if moved := changedSince(sp.Nodes, savedNodes(pl)); len(moved) > 0 {
		if len(moved) > maxNamed {
			moved = append(moved[:maxNamed], fmt.Sprintf("%d more", len(moved)-maxNamed))
		}
		return fmt.Errorf("%w: %s changed since the plan was saved (an input file, an upstream result, the machine or a result outside kiln); run kiln plan -out again", ErrStalePlan, strings.Join(moved, "; "))
	}
	return nil
}

// maxNamed is how many changed nodes a stale plan's error names.
const maxNamed = 5

// changedSince says how each node of now differs from its decision in
// then, in now's order.
func changedSince(then, now []SavedNode) []string {
	saved := make(map[string]SavedNode, len(then))
	for _, n := range then {
		saved[n.Address] = n
	}
	var moved []string
	for _, n := range now {
		s, ok := saved[n.Address]
		switch {
		case !ok:
			moved = append(moved, n.Address+" (not in the saved plan)")
		case !sameWork(s.Action, n.Action):
			moved = append(moved, fmt.Sprintf("%s (%s, the saved plan said %s)", n.Address, n.Action, s.Action))
		case s.Key != "" && n.Key != "" && s.Key != n.Key:
			moved = append(moved, n.Address+" (its key)")
		}
	}
	return moved
}

// sameWork reports whether two actions come to what the saved plan showed:
// the same action, or two ways to one result under one key (built,
// restored from the store or fetched from the cache), which the key check
// then holds to the same key.
func sameWork(then, now string) bool {
	gives := func(a string) bool { return a == "create" || a == "rebuild" || a == "restore" || a == "fetch" }
	return then == now || gives(then) && gives(now)
}
