package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A process's command line is visible to every user of the machine (ps,
// /proc/PID/cmdline is world-readable), its environment only to its owner
// and root. So a variable declared sensitive may reach a node's processes
// through env, and never through a command: a configuration whose command
// — an attribute named command at any depth, as every kind that starts a
// process names it (exec, service and its stop block, a toolchain's probe)
// — holds a sensitive variable's value, in a string or in a list, directly
// or through a local or a function, is refused where it is evaluated
// (validate, plan, apply, diff), with the env form to write instead. Values
// read with env() are hashed in keys like sensitive ones but are not
// refused: they are as often a path as a secret, and kiln cannot tell.

// sensitiveVariable marks the value of a variable declared sensitive, and
// everything computed from it, with the variable's name. It rides along
// with SensitiveMark, which keys and views honour; commandSecrets looks for
// it.
type sensitiveVariable string

// markSensitiveVariables adds the sensitiveVariable mark to the value of
// each variable declared sensitive.
func (p *Pipeline) markSensitiveVariables() {
	if !p.vars.Type().IsObjectType() {
		return
	}
	vals := p.vars.AsValueMap()
	for name, v := range p.Variables {
		if v.Sensitive && v.Value != cty.NilVal {
			v.Value = v.Value.Mark(sensitiveVariable(name))
			vals[name] = v.Value
			p.sensitive = true
		}
	}
	if len(vals) > 0 {
		p.vars = cty.ObjectVal(vals)
	}
}

// commandSecrets refuses each sensitive variable in a command of cfg, n's
// evaluated configuration: one error per command and variable. Only a
// variable declared sensitive marks a value so (Pipeline.sensitive).
func commandSecrets(n *Node, cfg cty.Value) hcl.Diagnostics {
	if cfg == cty.NilVal || !cfg.ContainsMarked() {
		return nil
	}
	_, marked := cfg.UnmarkDeepWithPaths()
	type use struct {
		attr []string // the command attribute's path: command, stop.command
		list bool     // the value is an element of a list command
	}
	found := map[string]use{}
	var keys []string
	for _, pm := range marked {
		attr, list, ok := commandAttr(pm.Path)
		if !ok {
			continue
		}
		for m := range pm.Marks {
			name, ok := m.(sensitiveVariable)
			if !ok {
				continue
			}
			k := strings.Join(attr, ".") + " " + string(name)
			if _, seen := found[k]; !seen {
				keys = append(keys, k)
			}
			found[k] = use{attr: attr, list: list || found[k].list}
		}
	}
	slices.Sort(keys)
	var diags hcl.Diagnostics
	for _, k := range keys {
		u := found[k]
		name := k[strings.IndexByte(k, ' ')+1:]
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Sensitive value in a command",
			Detail:   secretInCommand(n, strings.Join(u.attr, "."), name, u.list),
			Subject:  n.nestedAttrRange(u.attr).Ptr(),
		})
	}
	return diags
}

// secretInCommand says why var.name cannot be in attr and what to write.
func secretInCommand(n *Node, attr, name string, list bool) string {
	env := envName(name)
	msg := fmt.Sprintf("%s: %s holds var.%s, which is declared sensitive, and a command line is visible to every user of the machine (ps, /proc/PID/cmdline). Pass it in the environment instead: add %s to the node's env, env = { %s = var.%s }, and write $%s in the command",
		n.Addr, attr, name, env, env, name, env)
	if list {
		msg += fmt.Sprintf(` (a list command runs without a shell, so run it through one — ["sh", "-c", "tool --token \"$%s\""] — or let the program read %s from its environment)`, env, env)
	}
	return msg + "."
}

// envName is the environment variable suggested for a variable: its name
// in capitals, with anything but letters, digits and _ made _.
func envName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, name)
}

// commandAttr finds the attribute named command in path: its path of
// attribute names (blocks' list indexes left out) and whether path goes on
// into its elements (a list command).
func commandAttr(path cty.Path) (attr []string, list bool, ok bool) {
	for i, step := range path {
		ga, isAttr := step.(cty.GetAttrStep)
		if !isAttr {
			continue
		}
		attr = append(attr, ga.Name)
		if ga.Name == "command" {
			return attr, i+1 < len(path), true
		}
	}
	return nil, false, false
}

// nestedAttrRange is the range of the attribute at path (attribute names,
// through nested blocks) in n's block, or the block's when it cannot be
// found (a JSON file).
func (n *Node) nestedAttrRange(path []string) hcl.Range {
	if len(path) == 1 {
		return n.AttrRange(path[0])
	}
	body, ok := n.Block.Body().(*hclsyntax.Body)
	for ok && len(path) > 1 {
		var next *hclsyntax.Body
		for _, b := range body.Blocks {
			if b.Type == path[0] {
				next = b.Body
				break
			}
		}
		body, ok, path = next, next != nil, path[1:]
	}
	if ok {
		if a, found := body.Attributes[path[0]]; found {
			return a.Expr.Range()
		}
	}
	return n.DeclRange
}
