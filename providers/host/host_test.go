package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/proc"
	"github.com/kilnbuild/kiln/providers/host/hosttest"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// npuSmiList prints `npu-smi info -l` as an Atlas 800T A2 does, for n NPUs.
func npuSmiList(n int, withTotal bool) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n[ \"$1 $2\" = \"info -l\" ] || { echo \"usage: npu-smi info -l\" >&2; exit 2; }\ncat <<'OUT'\n")
	if withTotal {
		fmt.Fprintf(&b, "\tTotal Count                    : %d\n\n", n)
	}
	for i := range n {
		fmt.Fprintf(&b, "\tNPU ID                         : %d\n", i)
		b.WriteString("\tProduct Name                   : IT21PMAB\n")
		fmt.Fprintf(&b, "\tSerial Number                  : 033GPN10N90001%02d\n", i)
		b.WriteString("\tChip Count                     : 1\n\n")
	}
	b.WriteString("OUT\n")
	return b.String()
}

// fakeHost is an Ascend host's fact files in a temporary folder.
type fakeHost struct {
	dir, npuSmi, driver, firmware, cann string
}

func newFakeHost(t *testing.T, npuSmi, cann string) fakeHost {
	t.Helper()
	dir := t.TempDir()
	f := fakeHost{
		dir:      dir,
		npuSmi:   filepath.Join(dir, "bin/npu-smi"),
		driver:   filepath.Join(dir, "driver/version.info"),
		firmware: filepath.Join(dir, "firmware/version.info"),
		cann:     filepath.Join(dir, "ascend-toolkit/latest", proc.Arch()+"-linux/ascend_toolkit_install.info"),
	}
	if npuSmi != "" {
		writeFile(t, f.npuSmi, npuSmi, 0o755)
	}
	writeFile(t, f.driver, "Version=24.1.rc2\nascendhal_version=7.35.23\naicpu_version=1.0\ncompatible_version=[V100R001C15],[V100R001C17]\ncompatible_version_fw=[7.0.0,7.5.99]\npackage_version=24.1.rc2\n", 0o644)
	writeFile(t, f.firmware, "Version=7.5.0.1.129\nfirmware_version=1.0\npackage_version=24.1.rc2\n", 0o644)
	if cann != "" {
		writeFile(t, f.cann, "package_name=Ascend-cann-toolkit\nversion="+cann+"\ninnerversion=V100R001C23\narch="+proc.Arch()+"\n", 0o644)
	}
	return f
}

// hcl is a host block reading the fake facts, with the given require body.
func (f fakeHost) hcl(require string) string {
	return fmt.Sprintf(`
require {
%s
}
npu_smi       = %q
driver_info   = %q
firmware_info = %q
cann_info     = "ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info"
`, require, f.npuSmi, f.driver, f.firmware)
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func node(t *testing.T, k kind.Kind, root, src string) kind.Node {
	t.Helper()
	file, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	v, diags := hcldec.Decode(file.Body, k.Spec(), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return kind.Node{Addr: addr.Node{Kind: "host", Name: "a2"}, Config: v, Root: root}
}

func probe(t *testing.T, k kind.Kind, n kind.Node) *kind.Probe {
	t.Helper()
	p, err := k.(kind.Prober).Probe(context.Background(), &n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const fullRequire = `npus = 8
cann = "8.3.RC1"
arch = "` + "ARCH" + `"
driver = "24.1"
firmware = "7.5"`

func TestProbeAllRequirementsMet(t *testing.T) {
	f := newFakeHost(t, hosttest.NPUSmi(8, nil), "8.3.RC1")
	k := New()
	p := probe(t, k, node(t, k, f.dir, f.hcl(strings.ReplaceAll(fullRequire, "ARCH", proc.Arch()))))
	if p.Blocked != "" {
		t.Errorf("Blocked = %q, want none", p.Blocked)
	}
	want := map[string]string{
		"arch":     proc.Arch(),
		"npus":     "8",
		"devices":  "0-7",
		"driver":   "24.1.rc2",
		"firmware": "7.5.0.1.129",
		"cann":     "8.3.RC1",
	}
	if diff := cmp.Diff(want, p.Facts); diff != "" {
		t.Errorf("Facts (-want +got):\n%s", diff)
	}
	wantLines := [][2]string{
		{"host.arch", proc.Arch()},
		{"host.cann", "8.3.RC1"},
		{"host.driver", "24.1.rc2"},
		{"host.firmware", "7.5.0.1.129"},
		{"host.npus", "8"},
	}
	if diff := cmp.Diff(wantLines, p.KeyLines); diff != "" {
		t.Errorf("KeyLines (-want +got):\n%s", diff)
	}
}

func TestCountNPUs(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   string
		reason string
	}{
		{"total count", npuSmiList(8, true), "8", ""},
		{"NPU ID lines only", npuSmiList(4, false), "4", ""},
		{"no NPUs listed", npuSmiList(0, true), "0", "listed no NPUs"},
		{"npu-smi fails", "#!/bin/sh\necho 'dcmi module initialize failed. ret is -8005' >&2\nexit 1\n", "0", "dcmi module initialize failed. ret is -8005"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHost(t, tt.script, "8.3.RC1")
			k := New()
			p := probe(t, k, node(t, k, f.dir, f.hcl("")))
			if p.Facts["npus"] != tt.want {
				t.Errorf("npus = %q, want %q", p.Facts["npus"], tt.want)
			}
			if got := p.Facts["npus.reason"]; !strings.Contains(got, tt.reason) || (tt.reason == "") != (got == "") {
				t.Errorf("npus.reason = %q, want one containing %q", got, tt.reason)
			}
			if p.Blocked != "" || len(p.KeyLines) != 0 {
				t.Errorf("with nothing required got Blocked %q, KeyLines %v", p.Blocked, p.KeyLines)
			}
		})
	}
}

func TestProbeWithoutNPUSmi(t *testing.T) {
	f := newFakeHost(t, "", "")
	t.Setenv("PATH", t.TempDir())
	k := New().(*Host)
	k.NPUSmiDirs = nil
	src := strings.Replace(f.hcl("npus = 8\ncann = \"8.3.RC1\""), fmt.Sprintf("npu_smi       = %q", f.npuSmi), "", 1)
	p := probe(t, k, node(t, k, f.dir, src))
	want := "host a2: needs 8 NPUs, found 0 (npu-smi not found on PATH); needs CANN 8.3.RC1, found none (" + f.cann + " missing)"
	if diff := cmp.Diff(want, p.Blocked); diff != "" {
		t.Errorf("Blocked (-want +got):\n%s", diff)
	}
	if p.Facts["npus"] != "0" || p.Facts["npus.reason"] != "npu-smi not found on PATH" {
		t.Errorf("Facts = %v, want npus 0 with the reason", p.Facts)
	}
}

func TestProbeUnmetRequirements(t *testing.T) {
	tests := []struct {
		name    string
		require string
		blocked string
	}{
		{"cann mismatch", `cann = "8.3.RC1"`, "host a2: needs CANN 8.3.RC1, found 8.2.RC1"},
		{"too few NPUs", `npus = 16`, "host a2: needs 16 NPUs, found 8"},
		{"driver prefix", `driver = "23.0"`, "host a2: needs driver 23.0*, found 24.1.rc2"},
		{"driver prefix met", `driver = "24.1.rc"`, ""},
		{"arch", `arch = "riscv64"`, "host a2: needs arch riscv64, found " + proc.Arch()},
		{"a file present", `files = ["fake/` + "<arch>" + `.txt"]`, ""},
		{"a file missing", `files = ["/usr/lib/libjemalloc-kiln-missing.so.2", "fake/` + "<arch>" + `.txt"]`, "host a2: needs /usr/lib/libjemalloc-kiln-missing.so.2, not found"},
		{"a program found", `programs = ["sh"]`, ""},
		{"a program by path", `programs = ["fake/` + "<arch>" + `.txt"]`, "host a2: needs FAKE, not an executable file (install it, or set the path of an installed one)"},
		{
			"programs missing", `programs = ["sh", "gcc-kiln-missing", "g++"]`,
			"host a2: needs gcc-kiln-missing, not found on PATH (PATH): install it or add its folder to PATH; needs g++, not found on PATH (PATH): install it (apt-get install g++) or add its folder to PATH",
		},
		{
			"every unmet one", "npus = 16\ncann = \"8.3.RC1\"\nfirmware = \"7.6\"",
			"host a2: needs 16 NPUs, found 8; needs CANN 8.3.RC1, found 8.2.RC1; needs firmware 7.6*, found 7.5.0.1.129",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHost(t, npuSmiList(8, true), "8.2.RC1")
			if err := os.MkdirAll(filepath.Join(f.dir, "fake"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(f.dir, "fake", proc.Arch()+".txt"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			k := New()
			n := node(t, k, f.dir, f.hcl(tt.require))
			// Programs are looked up on the node's PATH: one folder with sh
			// in it and nothing else.
			bin := t.TempDir()
			if err := os.Symlink("/bin/sh", filepath.Join(bin, "sh")); err != nil {
				t.Fatal(err)
			}
			n.Env = []string{"PATH=" + bin}
			p := probe(t, k, n)
			want := strings.NewReplacer("(PATH)", "("+bin+")", "FAKE", filepath.Join(f.dir, "fake", proc.Arch()+".txt")).Replace(tt.blocked)
			if diff := cmp.Diff(want, p.Blocked); diff != "" {
				t.Errorf("Blocked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeyLinesOnlyRequiredFacts(t *testing.T) {
	f := newFakeHost(t, npuSmiList(8, true), "8.3.RC1")
	tests := []struct {
		require string
		want    [][2]string
	}{
		{"", nil},
		{"npus = 8", [][2]string{{"host.npus", "8"}}},
		{`cann = "8.3.RC1"`, [][2]string{{"host.cann", "8.3.RC1"}}},
		{"npus = 0\ndriver = \"24\"", [][2]string{{"host.driver", "24.1.rc2"}, {"host.npus", "8"}}},
	}
	for _, tt := range tests {
		k := New()
		p := probe(t, k, node(t, k, f.dir, f.hcl(tt.require)))
		if diff := cmp.Diff(tt.want, p.KeyLines); diff != "" {
			t.Errorf("require {%s}: KeyLines (-want +got):\n%s", tt.require, diff)
		}
	}
	k := New()
	p := probe(t, k, node(t, k, f.dir, "npu_smi = "+fmt.Sprintf("%q", f.npuSmi)))
	if len(p.KeyLines) != 0 || p.Facts["npus"] != "8" {
		t.Errorf("without a require block: KeyLines %v, Facts %v", p.KeyLines, p.Facts)
	}
}

func TestExportsAreKnownAtPlanTime(t *testing.T) {
	f := newFakeHost(t, npuSmiList(8, true), "8.3.RC1")
	k := New()
	n := node(t, k, f.dir, f.hcl("npus = 8"))
	got := k.Exports(&n)
	want := map[string]cty.Value{
		"npus":     cty.NumberIntVal(8),
		"cann":     cty.StringVal("8.3.RC1"),
		"driver":   cty.StringVal("24.1.rc2"),
		"firmware": cty.StringVal("7.5.0.1.129"),
		"arch":     cty.StringVal(proc.Arch()),
	}
	for name, w := range want {
		if !got[name].RawEquals(w) {
			t.Errorf("Exports[%s] = %#v, want %#v", name, got[name], w)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, src := range []string{"require {\n npus = 1.5\n}", "require {\n npus = -1\n}"} {
		k := New()
		n := node(t, k, t.TempDir(), src)
		if _, err := k.(kind.Prober).Probe(context.Background(), &n, nil); err == nil || !strings.Contains(err.Error(), "whole number") {
			t.Errorf("%q: Probe error = %v, want one asking for a whole number", src, err)
		}
	}
}
