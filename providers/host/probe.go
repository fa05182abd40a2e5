package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/kind/attr"
)

// Probe reads the machine's facts and checks the requirements. It fails only
// on a configuration error, never because the machine lacks something.
func (h *Host) Probe(ctx context.Context, n *kind.Node, _ *kind.Record) (*kind.Probe, error) {
	src, req, err := decode(n)
	if errors.Is(err, errUnknown) || errors.Is(err, attr.ErrUnknown) {
		return &kind.Probe{Facts: map[string]string{"probe": "deferred: " + errUnknown.Error()}}, nil
	}
	if err != nil {
		return nil, err
	}
	f := h.read(ctx, src)
	p := &kind.Probe{KeyLines: req.keyLines(f), Facts: f.Map()}
	if unmet := req.unmet(f, programEnv(n.Env)); len(unmet) > 0 {
		p.Blocked = label(n.Addr) + ": " + strings.Join(unmet, "; ")
	}
	return p, nil
}

// programEnv is the environment whose PATH required programs are looked up
// on: the node's when the engine knows it, else kiln's own.
func programEnv(env []string) []string {
	if env != nil {
		return env
	}
	return []string{"PATH=" + os.Getenv("PATH")}
}

func decode(n *kind.Node) (sources, requirements, error) {
	src, err := decodeSources(n.Config, n.Root)
	if err != nil {
		return src, requirements{}, wrap(n, err)
	}
	req, err := decodeRequirements(n.Config, n.Root)
	return src, req, wrap(n, err)
}

func wrap(n *kind.Node, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", label(n.Addr), err)
}
