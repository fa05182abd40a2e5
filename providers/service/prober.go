package service

import (
	"context"
	"strconv"

	"github.com/kilnbuild/kiln/engine/kind"
)

// Probe looks at the process the last build started: Down says why it must
// be started again (gone, pid recycled, readiness probe failing now). The
// readiness probe is tried once, within ProbeTimeout; while the
// configuration is not fully known only the process is checked.
func (s *Service) Probe(ctx context.Context, n *kind.Node, prev *kind.Record) (*kind.Probe, error) {
	s = s.withDefaults()
	pr := &kind.Probe{}
	if prev == nil {
		return pr, nil
	}
	r, err := recordedProcess(prev.Attrs)
	if err != nil {
		pr.Down = err.Error()
		return pr, nil
	}
	if why := r.leaderGone(); why != "" {
		pr.Down = why
		return pr, nil
	}
	pr.Facts = map[string]string{"pid": strconv.Itoa(r.pid)}
	cfg, err := decodeConfig(n.Config, n.Root, prev.Dir)
	if err != nil || cfg.ready == nil {
		return pr, nil
	}
	pctx, cancel := context.WithTimeout(ctx, s.ProbeTimeout)
	defer cancel()
	if err := cfg.ready.attempt(pctx, s.Client); err != nil {
		pr.Down = "not ready: " + err.Error()
	}
	return pr, nil
}
