package run

import (
	"sync"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/kind"
)

// letGo lets go of each block's syntax tree once the last of its instances
// in the apply has had its turn (config.Pipeline.ForgetBlock): a node is
// decided, and evaluated for its run, only at its own turn, and no other
// node's evaluation reads its block. Held to the end, the trees of 10,000
// blocks are a fifth of an apply's live heap while the records it writes
// grow; let go as the nodes run, the two do not add up.
//
// A block is kept when one of its instances is temp (a later node may have
// its removed result rebuilt, deciding it again) or a service, or when an
// instance never has its turn (skipped, cancelled). A nil letGo keeps
// every block.
type letGo struct {
	p       *config.Pipeline
	mu      sync.Mutex
	pending map[*config.Block]int // instances still to have their turn; -1: kept
}

// newLetGo counts the instances of each block among the apply's tasks (a
// dynamic block's placeholder stands for its instances until it expands).
func newLetGo(p *config.Pipeline, tasks []*applyTask) *letGo {
	l := &letGo{p: p, pending: make(map[*config.Block]int, len(p.Blocks))}
	for _, at := range tasks {
		l.pending[at.node.Block]++
	}
	return l
}

// expanded counts the instances a placeholder of their block expanded
// into; the placeholder's own turn ends with ran.
func (l *letGo) expanded(insts []*config.Node) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range insts {
		if l.pending[n.Block] >= 0 {
			l.pending[n.Block]++
		}
	}
}

// ran is called once n's turn is over; the last instance of a block to
// have its turn lets go of the block's syntax tree.
func (l *letGo) ran(n *config.Node) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := n.Block
	left := l.pending[b]
	switch {
	case left < 0:
		return
	case n.Meta.Temp || kind.IsService(b.Kind):
		l.pending[b] = -1
		return
	}
	l.pending[b] = left - 1
	if left == 1 {
		delete(l.pending, b)
		l.p.ForgetBlock(b)
	}
}
