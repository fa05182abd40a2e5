package host

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/pool"
)

// FactsFile is the name of the recorded facts in the output folder.
const FactsFile = "facts.json"

// Build reads the facts afresh, refuses unmet requirements and records the
// facts. The digest covers only the required facts.
func (h *Host) Build(ctx context.Context, b *kind.Build) (*kind.Result, error) {
	src, req, err := decode(&b.Node)
	if err != nil {
		return nil, err
	}
	f := h.read(ctx, src)
	if unmet := req.unmet(f, programEnv(b.Env)); len(unmet) > 0 {
		return nil, fmt.Errorf("%s: %s", label(b.Addr), strings.Join(unmet, "; "))
	}
	all := f.Map()
	if b.Log != nil {
		for _, k := range slices.Sorted(maps.Keys(all)) {
			fmt.Fprintf(b.Log, "%s = %s\n", k, all[k])
		}
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s: encoding facts: %w", label(b.Addr), err)
	}
	if err := os.WriteFile(filepath.Join(b.Dir, FactsFile), append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("%s: writing facts: %w (check that the output folder is writable)", label(b.Addr), err)
	}
	return &kind.Result{
		Digest:  digest(req.keyLines(f)),
		Attrs:   all,
		Exports: f.exports(),
	}, nil
}

// digest is the hash.Key of the key lines, one "label value" line each.
func digest(lines [][2]string) string {
	k := hash.NewKey()
	for _, l := range lines {
		k.Add(l[0], l[1])
	}
	return k.Sum().String()
}

// Devices are the NPUs a host's probe found (kind.DeviceReporter): the
// usable ids and those left out with the reason; nil when the probe found
// none (or was deferred).
func (h *Host) Devices(addr string, p *kind.Probe) *pool.Host {
	return pool.FromFacts(addr, p.Facts)
}
