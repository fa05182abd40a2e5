package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/zclconf/go-cty/cty"
)

// Followers. A block whose for_each is another for_each block, written as
// it stands (for_each = exec.map), follows that block: one instance per
// instance of it, under the same key, each.key that key and each.value
// that instance's value (its out, digest and exports). It is the
// per-sample chain:
//
//	exec "sort" {
//	  for_each = exec.map
//	  command  = "sort ${each.value.out}/reads > $KILN_OUT/sorted"
//	}
//
// When the instances of the block it follows are known at load time (a
// static for_each, or a follower of one), so are the follower's: it is an
// ordinary static block, not a dynamic one. Its for_each gives it its keys
// and no edge; reading each.value (or each as a whole) is reading its own
// instance of the block it follows, so exec.sort["a"] then depends on
// exec.map["a"] alone and its configuration sees that instance's value as
// decided, like exec.map[each.key]. When the block it follows is dynamic,
// the follower is dynamic too (dynamic.go), and an instance looks for the
// files it was made from under its own instance's result only.

// followTarget returns the block b's for_each names, when it is a
// reference to a whole for_each block and nothing else.
func followTarget(b *Block, blocks map[addr.Node]*Block) (addr.Node, bool) {
	if b.ForEach == nil {
		return addr.Node{}, false
	}
	t, d := hcl.AbsTraversalForExpr(b.ForEach)
	if d.HasErrors() || len(t) != 2 {
		return addr.Node{}, false
	}
	name, ok := attrStep(t, 1)
	if !ok {
		return addr.Node{}, false
	}
	a := addr.Node{Kind: t.RootName(), Name: name}
	target := blocks[a]
	if target == nil || target == b || target.ForEach == nil {
		return addr.Node{}, false
	}
	return a, true
}

// readsEach reports whether travs read each.value or each as a whole.
func readsEach(travs []hcl.Traversal) bool {
	for _, t := range travs {
		if t.RootName() != "each" {
			continue
		}
		if name, ok := attrStep(t, 1); !ok || name == "value" {
			return true
		}
	}
	return false
}

// resolveFollowers makes static every follower whose chain of blocks
// followed ends at a block known at load time. One whose chain ends at a
// dynamic block, or comes back to itself, stays dynamic (a cycle is then
// reported as it is for any dynamic block).
func (p *Pipeline) resolveFollowers() {
	for _, b := range p.Blocks {
		if b.follows == nil || b.dynamic == nil {
			continue
		}
		if p.followsStatic(b) {
			b.dynamic = nil
		}
	}
}

// followsStatic reports whether b's chain of followed blocks ends at a
// block that is not dynamic.
func (p *Pipeline) followsStatic(b *Block) bool {
	for range len(p.Blocks) {
		next := p.blockOf[*b.follows]
		if next.follows == nil {
			return next.dynamic == nil
		}
		b = next
	}
	return false // a cycle
}

// followed returns the instance n follows (see followTarget): the instance
// of the same key of the block its for_each names.
func (n *Node) followed() (addr.Node, bool) {
	if n.Block == nil || n.Block.follows == nil || n.Placeholder() {
		return addr.Node{}, false
	}
	a := *n.Block.follows
	a.Key = n.Addr.Key
	return a, true
}

// followerInstances makes the instances of a static follower: one per
// instance of the block it follows, which are known already.
func (p *Pipeline) followerInstances(b *Block) []*Node {
	src := p.instances[*b.follows]
	nodes := make([]*Node, len(src))
	for i, s := range src {
		a := b.Addr()
		a.Key = s.Key
		each := &EachValue{Key: cty.StringVal(s.Key.Str), Value: p.StaticValue(s)}
		nodes[i] = &Node{Addr: a, Block: b, Each: each, CountIdx: -1, DeclRange: b.DeclRange}
	}
	return nodes
}

// eachValue is each.value of instance n against vals: for a follower, the
// value of the instance it follows as vals has it.
func (p *Pipeline) eachValue(n *Node, vals Values) cty.Value {
	if src, ok := n.followed(); ok {
		return p.valueOf(src, vals)
	}
	return n.Each.Value
}
