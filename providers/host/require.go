package host

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/proc"
)

// unmet names every requirement the facts do not meet, in the order npus,
// cann, arch, driver, firmware, files, programs. Programs are looked up on
// the PATH of env.
func (r requirements) unmet(f *facts, env []string) []string {
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
	for _, p := range r.Programs {
		if !findProgram(p, env) {
			out = append(out, missingProgram(p, proc.EnvValue(env, "PATH")))
		}
	}
	return out
}

// findProgram reports whether p, a name on the PATH of env or a path, is an
// executable file.
func findProgram(p string, env []string) bool {
	if strings.Contains(p, "/") {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
	}
	_, err := proc.LookPath(p, "/", env)
	return err == nil
}

// missingProgram says that a required program is not there and how to get
// it: the package that ships it on Debian and Ubuntu where kiln knows one.
func missingProgram(p, path string) string {
	if strings.Contains(p, "/") {
		return fmt.Sprintf("needs %s, not an executable file (install it, or set the path of an installed one)", p)
	}
	how := "install it or add its folder to PATH"
	if pkg, ok := debianPackages[p]; ok {
		how = fmt.Sprintf("install it (apt-get install %s) or add its folder to PATH", pkg)
	}
	return fmt.Sprintf("needs %s, not found on PATH (%s): %s", p, path, how)
}

// debianPackages are the Debian and Ubuntu packages of programs builds
// commonly require.
var debianPackages = map[string]string{
	"gcc": "gcc", "g++": "g++", "cc": "gcc", "c++": "g++", "make": "make", "cmake": "cmake",
	"ninja": "ninja-build", "git": "git", "git-lfs": "git-lfs", "patch": "patch", "curl": "curl",
	"wget": "wget", "jq": "jq", "pkg-config": "pkg-config",
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
