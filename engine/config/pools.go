package config

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/zclconf/go-cty/cty"
)

// Pool is a `pool "NAME" { devices, env, groups }` block: what the pipeline
// says about a resource pool (engine/pool resolves it against the machine
// and -resource).
type Pool struct {
	Spec      pool.Spec
	DeclRange hcl.Range
}

// poolSchema comes from the documented block (language.go).
var poolSchema = PoolBlock.BodySchema()

// decodePools evaluates the pool blocks. Their attributes must be known when
// the pipeline loads: literals, variables and locals that use no node.
func (p *Pipeline) decodePools() hcl.Diagnostics {
	if len(p.poolBlocks) == 0 {
		return nil
	}
	var diags hcl.Diagnostics
	ctx := p.staticContext()
	p.Pools = map[string]*Pool{}
	for _, b := range p.poolBlocks {
		pb := &Pool{Spec: pool.Spec{Name: b.Labels[0]}, DeclRange: b.DefRange}
		if !hclIdent(pb.Spec.Name) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid pool name",
				Detail: fmt.Sprintf("%q is not a valid name: use the resource's name as nodes write it in resources = { NAME = N }.", pb.Spec.Name), Subject: b.LabelRanges[0].Ptr()})
			continue
		}
		content, d := b.Body.Content(poolSchema)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		value := func(name string) (cty.Value, *hcl.Attribute) {
			a, ok := content.Attributes[name]
			if !ok {
				return cty.NilVal, nil
			}
			v, d := a.Expr.Value(ctx)
			diags = append(diags, d...)
			if d.HasErrors() {
				return cty.NilVal, nil
			}
			v, _ = v.Unmark()
			if !v.IsWhollyKnown() || v.IsNull() {
				diags = append(diags, poolError(a, "must be known when the pipeline loads: use literals, variables, or locals that use no node"))
				return cty.NilVal, nil
			}
			return v, a
		}
		if v, a := value("devices"); a != nil {
			ids, err := idsValue(v)
			if err != nil {
				diags = append(diags, poolError(a, err.Error()+`; write devices = "0-7" or devices = [0, 1, 2, 3]`))
			} else {
				pb.Spec.Devices = ids
			}
		}
		if v, a := value("env"); a != nil {
			if v.Type() != cty.String {
				diags = append(diags, poolError(a, `must be the name of an environment variable, such as "CUDA_VISIBLE_DEVICES", or "" for none`))
			} else {
				s := v.AsString()
				pb.Spec.Env = &s
			}
		}
		if v, a := value("groups"); a != nil {
			groups, err := groupsValue(v, pb.Spec.Devices)
			if err != nil {
				diags = append(diags, poolError(a, err.Error()))
			} else {
				pb.Spec.Groups = groups
			}
		}
		p.Pools[pb.Spec.Name] = pb
	}
	return diags
}

func poolError(a *hcl.Attribute, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid pool " + a.Name, Detail: a.Name + " " + detail + ".", Subject: a.Expr.Range().Ptr()}
}

// idsValue reads device ids from a string ("0-3,6") or a list of numbers.
func idsValue(v cty.Value) (pool.IDs, error) {
	if v.Type() == cty.String {
		ids, err := pool.ParseIDs(v.AsString())
		if err != nil {
			return nil, fmt.Errorf("is not a list of device ids: %w", err)
		}
		return ids, nil
	}
	if !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, fmt.Errorf("must be device ids")
	}
	var ints []int
	for _, e := range v.AsValueSlice() {
		if e.Type() != cty.Number {
			return nil, fmt.Errorf("must list device ids as whole numbers")
		}
		i, acc := e.AsBigFloat().Int64()
		if acc != big.Exact || i < 0 || i > 1<<20 {
			return nil, fmt.Errorf("must list device ids as whole numbers, 0 or more; %s is not one", e.AsBigFloat().Text('g', -1))
		}
		ints = append(ints, int(i))
	}
	return pool.NewIDs(ints...)
}

// groupsValue reads groups = [[0,1,2,3],[4,5,6,7]]: disjoint sets of ids,
// within devices when the block declares them.
func groupsValue(v cty.Value, devices pool.IDs) ([]pool.IDs, error) {
	if !v.CanIterateElements() || v.Type().IsMapType() || v.Type().IsObjectType() {
		return nil, fmt.Errorf("must be a list of lists of device ids, such as [[0, 1, 2, 3], [4, 5, 6, 7]]")
	}
	var groups []pool.IDs
	seen := map[int]int{}
	for g, e := range v.AsValueSlice() {
		ids, err := idsValue(e)
		if err != nil {
			return nil, fmt.Errorf("group %d %w", g+1, err)
		}
		for _, id := range ids {
			if other, dup := seen[id]; dup {
				return nil, fmt.Errorf("puts device %d in group %d and in group %d: a device belongs to one group", id, other+1, g+1)
			}
			seen[id] = g
			if devices != nil && !devices.Contains(id) {
				return nil, fmt.Errorf("group %d names device %d, which devices (%s) does not list", g+1, id, devices)
			}
		}
		groups = append(groups, ids)
	}
	return groups, nil
}
