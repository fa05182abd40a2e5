package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/engine/proc"

	"github.com/zclconf/go-cty/cty"
)

// facts is what a look at the machine found. An empty fact has a reason.
type facts struct {
	Arch     string
	NPUs     int64
	Driver   string
	Firmware string
	CANN     string
	Devices  pool.IDs          // usable NPU device ids (logic ids), healthy or of unknown health
	Excluded []pool.Exclusion  // NPU devices npu-smi reports unhealthy
	Reasons  map[string]string // fact name → why it is empty (or 0)
}

// gather reads every fact; it never fails, it records reasons.
func (h *Host) gather(ctx context.Context, src sources) *facts {
	f := &facts{Arch: proc.Arch(), Reasons: map[string]string{}}
	var list string
	f.NPUs, list = h.countNPUs(ctx, src.NPUSmi, f.Reasons)
	if f.NPUs > 0 {
		path, _ := h.findNPUSmi(src.NPUSmi)
		h.readDevices(ctx, path, list, f)
	}
	f.Driver = readFact(src.DriverInfo, "Version", "driver", f.Reasons)
	f.Firmware = readFact(src.FirmwareInfo, "Version", "firmware", f.Reasons)
	f.CANN = readFact(src.CANNInfo, "version", "cann", f.Reasons)
	return f
}

var (
	totalCount = regexp.MustCompile(`(?m)^\s*Total Count\s*:\s*(\d+)\s*$`)
	npuID      = regexp.MustCompile(`(?m)^\s*NPU ID\s*:`)
)

// countNPUs runs `npu-smi info -l`: the Total Count line when present,
// otherwise the number of NPU ID lines. It returns the listing too.
func (h *Host) countNPUs(ctx context.Context, name string, reasons map[string]string) (int64, string) {
	path, problem := h.findNPUSmi(name)
	if problem != "" {
		reasons["npus"] = problem
		return 0, ""
	}
	out, err := h.npuSmi(ctx, path, "info", "-l")
	if err != nil {
		reasons["npus"] = err.Error()
		return 0, ""
	}
	if m := totalCount.FindStringSubmatch(out); m != nil {
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err == nil && n > 0 {
			return n, out
		}
	}
	if n := int64(len(npuID.FindAllStringIndex(out, -1))); n > 0 {
		return n, out
	}
	reasons["npus"] = fmt.Sprintf("`%s info -l` listed no NPUs", path)
	return 0, out
}

// npuSmi runs the npu-smi at path with args and returns what it printed;
// the error says what failed, with the last lines of its output.
func (h *Host) npuSmi(ctx context.Context, path string, args ...string) (string, error) {
	out := &proc.Tail{Max: 1 << 20}
	w := &proc.SyncWriter{W: out}
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = proc.Environ("PATH", "HOME", "LD_LIBRARY_PATH"), w, w
	if err := proc.Run(ctx, cmd, h.Grace); err != nil {
		return "", fmt.Errorf("`%s %s` failed: %v: %s", path, strings.Join(args, " "), err, proc.LastLines(out.String(), 3))
	}
	return out.String(), nil
}

// findNPUSmi resolves the npu-smi command, or says why it cannot.
func (h *Host) findNPUSmi(name string) (string, string) {
	if strings.Contains(name, "/") {
		if _, err := os.Stat(name); err != nil {
			return "", name + " not found"
		}
		return name, ""
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, ""
	}
	if name == DefaultNPUSmi {
		for _, dir := range h.NPUSmiDirs {
			p := filepath.Join(dir, name)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, ""
			}
		}
	}
	return "", name + " not found on PATH"
}

// readFact reads key from a key=value file, recording why when it cannot.
func readFact(path, key, fact string, reasons map[string]string) string {
	v, ok, err := proc.ReadKey(path, key)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		reasons[fact] = path + " missing"
	case err != nil:
		reasons[fact] = fmt.Sprintf("cannot read %s: %v", path, err)
	case !ok || v == "":
		reasons[fact] = fmt.Sprintf("%s has no %s= line", path, key)
	}
	return v
}

// Map is every fact and every reason, as Probe.Facts and Result.Attrs hold them.
func (f *facts) Map() map[string]string {
	m := map[string]string{
		"arch":     f.Arch,
		"npus":     strconv.FormatInt(f.NPUs, 10),
		"driver":   f.Driver,
		"firmware": f.Firmware,
		"cann":     f.CANN,
	}
	for k, v := range pool.HostFacts(f.Devices, f.Excluded) {
		m[k] = v
	}
	for k, why := range f.Reasons {
		m[k+".reason"] = why
	}
	return m
}

func (f *facts) exports() map[string]cty.Value {
	return map[string]cty.Value{
		"npus":     cty.NumberIntVal(f.NPUs),
		"cann":     cty.StringVal(f.CANN),
		"driver":   cty.StringVal(f.Driver),
		"firmware": cty.StringVal(f.Firmware),
		"arch":     cty.StringVal(f.Arch),
	}
}
