package host

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// unmet names every requirement the facts do not meet, in the order npus,
// cann, arch, driver, firmware.
func (r requirements) unmet(f *facts) []string {
	var out []string
	if r.NPUs >= 0 && f.NPUs < r.NPUs {
		noun := "NPUs"
		if r.NPUs == 1 {
			noun = "NPU"
		}
		out = append(out, fmt.Sprintf("needs %d %s, found %d%s", r.NPUs, noun, f.NPUs, because(f.Reasons["npus"])))
	}
	if r.CANN != "" && f.CANN != r.CANN {
		out = append(out, fmt.Sprintf("needs CANN %s, found %s", r.CANN, orNone(f.CANN, f.Reasons["cann"])))
	}
	if r.Arch != "" && f.Arch != r.Arch {
		out = append(out, fmt.Sprintf("needs arch %s, found %s", r.Arch, f.Arch))
	}
	if r.Driver != "" && (f.Driver == "" || !strings.HasPrefix(f.Driver, r.Driver)) {
		out = append(out, fmt.Sprintf("needs driver %s*, found %s", r.Driver, orNone(f.Driver, f.Reasons["driver"])))
	}
	if r.Firmware != "" && (f.Firmware == "" || !strings.HasPrefix(f.Firmware, r.Firmware)) {
		out = append(out, fmt.Sprintf("needs firmware %s*, found %s", r.Firmware, orNone(f.Firmware, f.Reasons["firmware"])))
	}
	for _, file := range r.Files {
		if _, err := os.Stat(file); err != nil {
			out = append(out, fmt.Sprintf("needs %s, not found", file))
		}
	}
	return out
}

// keyLines are the facts named in the require block, sorted by label.
func (r requirements) keyLines(f *facts) [][2]string {
	var lines [][2]string
	if r.Arch != "" {
		lines = append(lines, [2]string{"host.arch", f.Arch})
	}
	if r.CANN != "" {
		lines = append(lines, [2]string{"host.cann", orNoneValue(f.CANN)})
	}
	if r.Driver != "" {
		lines = append(lines, [2]string{"host.driver", orNoneValue(f.Driver)})
	}
	if r.Firmware != "" {
		lines = append(lines, [2]string{"host.firmware", orNoneValue(f.Firmware)})
	}
	if r.NPUs >= 0 {
		lines = append(lines, [2]string{"host.npus", strconv.FormatInt(f.NPUs, 10)})
	}
	return lines
}

func because(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

func orNone(v, reason string) string {
	if v != "" {
		return v
	}
	return "none" + because(reason)
}

func orNoneValue(v string) string {
	if v == "" {
		return "none"
	}
	return v
}
