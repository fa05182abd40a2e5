package host

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/kilnbuild/kiln/engine/proc"

	"github.com/zclconf/go-cty/cty"
)

// sources says where the facts are read from. It is comparable: it keys the
// Host's fact cache.
type sources struct {
	NPUSmi       string
	DriverInfo   string
	FirmwareInfo string
	CANNInfo     string
}

// requirements is a require block; empty fields (and NPUs < 0) are not
// required.
type requirements struct {
	NPUs     int64
	CANN     string
	Arch     string
	Driver   string
	Firmware string
	Files    []string // must exist (absolute, or relative to the pipeline folder)
	Programs []string // must be found on PATH (names) or be executable (paths)
}

func decodeSources(v cty.Value, root string) (sources, error) {
	if v.IsNull() || !v.Type().IsObjectType() {
		return sources{}, errors.New("host configuration is missing")
	}
	src := sources{
		NPUSmi:       DefaultNPUSmi,
		DriverInfo:   DefaultDriverInfo,
		FirmwareInfo: DefaultFirmwareInfo,
		CANNInfo:     proc.ExpandArch(DefaultCANNInfo),
	}
	for name, dst := range map[string]*string{
		"npu_smi":       &src.NPUSmi,
		"driver_info":   &src.DriverInfo,
		"firmware_info": &src.FirmwareInfo,
		"cann_info":     &src.CANNInfo,
	} {
		s, ok, err := attr.String(v, name)
		if err != nil {
			return sources{}, err
		}
		if !ok || s == "" {
			continue
		}
		if name == "npu_smi" && !strings.Contains(s, "/") {
			*dst = s // a command name, looked up on PATH
			continue
		}
		*dst = resolve(root, proc.ExpandArch(s))
	}
	return src, nil
}

func decodeRequirements(v cty.Value, root string) (requirements, error) {
	r := requirements{NPUs: -1}
	req := attr.Get(v, "require")
	if req.IsNull() {
		return r, nil
	}
	if !req.IsKnown() {
		return r, errUnknown
	}
	if req.Type().IsObjectType() && req.Type().HasAttribute("npus") {
		n := req.GetAttr("npus")
		switch {
		case !n.IsKnown():
			return r, errUnknown
		case n.IsNull():
		case n.Type() != cty.Number:
			return r, errors.New("require.npus must be a number")
		default:
			i, acc := n.AsBigFloat().Int64()
			if acc != big.Exact || i < 0 {
				return r, fmt.Errorf("require.npus = %s: use a whole number of NPUs, 0 or more", n.AsBigFloat().Text('g', -1))
			}
			r.NPUs = i
		}
	}
	for name, dst := range map[string]*string{"cann": &r.CANN, "arch": &r.Arch, "driver": &r.Driver, "firmware": &r.Firmware} {
		s, _, err := attr.String(req, name)
		if err != nil {
			return r, err
		}
		*dst = s
	}
	files, err := attr.Strings(req, "files")
	if err != nil {
		return r, err
	}
	for _, f := range files {
		if f == "" {
			return r, errors.New("require.files holds an empty path")
		}
		r.Files = append(r.Files, resolve(root, proc.ExpandArch(f)))
	}
	programs, err := attr.Strings(req, "programs")
	if err != nil {
		return r, err
	}
	for _, p := range programs {
		if p == "" {
			return r, errors.New("require.programs holds an empty name")
		}
		if strings.Contains(p, "/") {
			p = resolve(root, proc.ExpandArch(p))
		}
		r.Programs = append(r.Programs, p)
	}
	return r, nil
}
