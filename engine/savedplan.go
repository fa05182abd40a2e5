package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/kilnbuild/kiln/engine/state"
)

// SavedPlanFormat names the format of the files kiln plan -out writes.
const SavedPlanFormat = "kiln-plan-1"

// SavedPlan is the file kiln plan -out writes and kiln apply FILE reads:
// what the plan was made from (the pipeline, a digest of its files and
// variables, the flags that change decisions), the state it was made
// against, and the plan itself as plan -json prints it.
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
	Resources []string        `json:"resources,omitempty"`
	Plan      json.RawMessage `json:"plan"`
}

// PlanFlags are the flags of kiln plan -out that change what apply decides,
// beside the variables the workspace was opened with.
type PlanFlags struct {
	Targets, Replace, Resources []string
}

// SavePlan writes plan (the plan -json model) to file as a SavedPlan of
// this workspace, atomically.
func (w *Workspace) SavePlan(file string, f PlanFlags, plan any) error {
	raw, err := json.Marshal(plan)
	if err != nil {
		return err
	}
	sp := SavedPlan{
		Format: SavedPlanFormat, Path: w.pipeline.Root, Config: w.ConfigDigest(), Stamp: w.Stamp(),
		Vars: w.VarFlags(), VarFiles: w.VarFiles(), Targets: f.Targets, Replace: f.Replace, Resources: f.Resources, Plan: raw,
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
	if err := json.Unmarshal(b, &sp); err != nil || sp.Format != SavedPlanFormat {
		return nil, fmt.Errorf("%s is not a kiln plan file (make one with kiln plan -out %s)", file, file)
	}
	return &sp, nil
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
	return json.NewDecoder(f).Decode(&head) == nil && head.Format == SavedPlanFormat
}

// CheckSavedPlan says, with an error wrapping ErrStalePlan, when applying
// now would not do what sp showed: the pipeline's files or variables
// changed, or a node's key known when the plan was saved is different now
// (an input file, an upstream result or the machine changed). Apply checks
// the state sp was made against itself, under the apply lock
// (ApplyOptions.Expect).
func (w *Workspace) CheckSavedPlan(ctx context.Context, sp *SavedPlan) error {
	if w.ConfigDigest() != sp.Config {
		return fmt.Errorf("%w: the pipeline's files or variables changed since the plan was saved; run kiln plan -out again", ErrStalePlan)
	}
	if moved := w.changedSincePlan(ctx, sp); len(moved) > 0 {
		return fmt.Errorf("%w: %s changed since the plan was saved (an input file, an upstream result or the machine); run kiln plan -out again", ErrStalePlan, strings.Join(moved, ", "))
	}
	return nil
}

// changedSincePlan lists the nodes whose key, known when the plan was
// saved, is different now.
func (w *Workspace) changedSincePlan(ctx context.Context, sp *SavedPlan) []string {
	var then struct {
		Changes []struct {
			Address string `json:"address"`
			Key     string `json:"key"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(sp.Plan, &then); err != nil {
		return []string{"the saved plan"}
	}
	pl, diags := w.Plan(ctx)
	if diags.HasErrors() {
		return []string{"the pipeline"}
	}
	keys := map[string]string{}
	for _, c := range then.Changes {
		keys[c.Address] = c.Key
	}
	var moved []string
	for _, d := range pl.Changes {
		if k := keys[d.Node.Addr.String()]; k != "" && d.Key != "" && k != d.Key {
			moved = append(moved, d.Node.Addr.String())
		}
	}
	return moved
}
