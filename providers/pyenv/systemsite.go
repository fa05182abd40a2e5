package pyenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/kilnbuild/kiln/engine/proc"
)

// systemSiteScript lists the distributions the interpreter itself sees, as
// a venv made with --system-site-packages does besides its own: -I keeps
// PYTHONPATH, the user's site folder and the working folder out.
const systemSiteScript = `import json, importlib.metadata as m
print(json.dumps([[d.metadata["Name"] or "", d.version or ""] for d in m.distributions()]))`

// systemSites caches the listing by interpreter path and PATH for the life
// of the process, as probes does the interpreter itself.
var systemSites sync.Map // string -> *systemSiteOnce

type systemSiteOnce struct {
	once    sync.Once
	lines   [][2]string
	problem string
}

// systemSiteLines are the key lines of the distributions interp sees, one
// "python.system_site NAME" line with its version per distribution, sorted
// by normalised name (the first one found of a name, as Python imports it).
func (p *PythonEnv) systemSiteLines(ctx context.Context, interp, path string) ([][2]string, string) {
	v, _ := systemSites.LoadOrStore(interp+"\x00"+path, &systemSiteOnce{})
	o := v.(*systemSiteOnce)
	o.once.Do(func() { o.lines, o.problem = p.listSystemSite(ctx, interp, path) })
	return o.lines, o.problem
}

func (p *PythonEnv) listSystemSite(ctx context.Context, interp, path string) ([][2]string, string) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var stderr bytes.Buffer
	c := command{
		Path: interp,
		Args: []string{"-I", "-c", systemSiteScript},
		Env:  append(proc.Environ("HOME", "LANG"), "PATH="+path),
		Log:  &stderr,
	}
	out, err := output(ctx, c, p.grace())
	if err != nil {
		why := firstComplaint(stderr.String())
		if why == "" {
			why = err.Error()
		}
		return nil, fmt.Sprintf("cannot list the packages of %s for system_site_packages: %s", interp, why)
	}
	var dists [][2]string
	if err := json.Unmarshal(out, &dists); err != nil {
		return nil, fmt.Sprintf("cannot read the packages %s listed for system_site_packages: %v", interp, err)
	}
	return systemSiteKeyLines(dists), ""
}

// systemSiteKeyLines turns a listing in sys.path order into sorted key
// lines, keeping the first distribution of each name.
func systemSiteKeyLines(dists [][2]string) [][2]string {
	seen := map[string]bool{}
	var lines [][2]string
	for _, d := range dists {
		name := NormaliseName(d[0])
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		lines = append(lines, [2]string{"python.system_site " + name, d[1]})
	}
	slices.SortFunc(lines, func(a, b [2]string) int {
		if a[0] < b[0] {
			return -1
		}
		if a[0] > b[0] {
			return 1
		}
		return 0
	})
	return lines
}
