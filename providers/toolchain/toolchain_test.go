package toolchain

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kilnbuild/kiln/engine/proc"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// fakeCANN is a CANN-like tree in a temporary folder.
type fakeCANN struct {
	root    string // pipeline folder; the tree lives under root/Ascend
	toolkit string // ascend-toolkit/set_env.sh
	atb     string // nnal/atb/set_env.sh
	info    string // ascend_toolkit_install.info
}

func newFakeCANN(t *testing.T, version string) fakeCANN {
	t.Helper()
	root := t.TempDir()
	f := fakeCANN{
		root:    root,
		toolkit: filepath.Join(root, "Ascend/ascend-toolkit/set_env.sh"),
		atb:     filepath.Join(root, "Ascend/nnal/atb/set_env.sh"),
		info:    filepath.Join(root, "Ascend/ascend-toolkit/latest", proc.Arch()+"-linux", "ascend_toolkit_install.info"),
	}
	writeFile(t, f.toolkit, `# fake ascend-toolkit set_env.sh
export ASCEND_TOOLKIT_HOME=`+root+`/Ascend/ascend-toolkit/latest
export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${ASCEND_TOOLKIT_HOME}/`+proc.Arch()+`-linux/devlib:${LD_LIBRARY_PATH}
export UNCHANGED=same
`)
	writeFile(t, f.atb, `# fake nnal/atb set_env.sh
echo "atb environment set"
export ATB_HOME_PATH=`+root+`/Ascend/nnal/atb/latest
export LD_LIBRARY_PATH=${ATB_HOME_PATH}/lib:${LD_LIBRARY_PATH}
`)
	writeFile(t, f.info, "package_name=Ascend-cann-toolkit\nversion="+version+"\ninnerversion=V100R001C23SPC001B235\narch="+proc.Arch()+"\nos=linux\n")
	return f
}

// hcl is a toolchain block body using the fake tree.
func (f fakeCANN) hcl(extra string) string {
	return fmt.Sprintf(`
setup   = [%q, "Ascend/nnal/atb/set_env.sh"]
version = "8.3.RC1"
probe {
  file = "Ascend/ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info"
}
%s
`, f.toolkit, extra)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func sha(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func decode(t *testing.T, k kind.Kind, src string) cty.Value {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	v, diags := hcldec.Decode(f.Body, k.Spec(), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return v
}

func node(t *testing.T, k kind.Kind, root, src string) kind.Node {
	return kind.Node{
		Addr:   addr.Node{Kind: "toolchain", Name: "cann"},
		Config: decode(t, k, src),
		Root:   root,
	}
}

func newBuild(t *testing.T, n kind.Node, env ...string) (*kind.Build, *bytes.Buffer) {
	log := &bytes.Buffer{}
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	return &kind.Build{Node: n, Dir: t.TempDir(), Env: append(base, env...), Log: log}, log
}

func TestProbe(t *testing.T) {
	tests := []struct {
		name    string
		version string                         // in the install.info
		change  func(t *testing.T, f fakeCANN) // applied to the tree
		extra   string                         // more HCL, replacing the probe block when it has one
		blocked string                         // with ROOT for the tree's folder
		found   string
	}{
		{name: "ok", version: "8.3.RC1", found: "8.3.RC1"},
		{
			name: "missing setup script", version: "8.3.RC1", found: "8.3.RC1",
			change:  func(t *testing.T, f fakeCANN) { os.Remove(f.atb) },
			blocked: "toolchain cann: ROOT/Ascend/nnal/atb/set_env.sh not found (install CANN 8.3.RC1 or set the variable that names its path)",
		},
		{
			name: "version mismatch", version: "8.2.RC1", found: "8.2.RC1",
			blocked: "toolchain cann: version 8.2.RC1 found in ROOT/Ascend/ascend-toolkit/latest/" + proc.Arch() + "-linux/ascend_toolkit_install.info, 8.3.RC1 required",
		},
		{
			name: "missing version file and script", version: "8.3.RC1",
			change: func(t *testing.T, f fakeCANN) { os.Remove(f.info); os.Remove(f.toolkit) },
			blocked: "toolchain cann: ROOT/Ascend/ascend-toolkit/set_env.sh not found (install CANN 8.3.RC1 or set the variable that names its path); " +
				"version file ROOT/Ascend/ascend-toolkit/latest/" + proc.Arch() + "-linux/ascend_toolkit_install.info not found (install CANN 8.3.RC1 or set probe.file to the file that records its version)",
		},
		{
			name: "arch placeholder", version: "8.3.RC1", found: "8.3.RC1",
			extra: `probe {
  file = "Ascend/ascend-toolkit/latest/$${arch}-linux/ascend_toolkit_install.info"
  key  = "VERSION"
}`,
		},
		{
			name: "no bash on PATH", version: "8.3.RC1", found: "8.3.RC1",
			change:  func(t *testing.T, f fakeCANN) { t.Setenv("PATH", f.root+"/no-bin") },
			blocked: "toolchain cann: bash not found on PATH (ROOT/no-bin): the setup scripts are sourced with bash; install it (apt-get install bash) or add its folder to PATH",
		},
		{
			name: "command probe", version: "1", found: "8.3.RC1",
			extra: `probe {
  command = ["bash", "-c", "echo 'CANN toolkit 8.3.RC1 (build 235)'"]
  pattern = "toolkit ([0-9A-Za-z.]+)"
}`,
		},
		{
			name: "command probe mismatch", version: "1", found: "8.2.RC1",
			extra: `probe {
  command = ["bash", "-c", "echo 'CANN toolkit 8.2.RC1'"]
  pattern = "toolkit ([0-9A-Za-z.]+)"
}`,
			blocked: "toolchain cann: version 8.2.RC1 found by `bash -c echo 'CANN toolkit 8.2.RC1'`, 8.3.RC1 required",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeCANN(t, tt.version)
			src := f.hcl("")
			if tt.extra != "" {
				src = fmt.Sprintf("setup = [%q, %q]\nversion = \"8.3.RC1\"\n%s\n", f.toolkit, f.atb, tt.extra)
			}
			k := New()
			n := node(t, k, f.root, src)
			var hashes [2]string
			hashes[0], hashes[1] = sha(t, f.toolkit), sha(t, f.atb)
			if tt.change != nil {
				tt.change(t, f)
			}
			for i, p := range []string{f.toolkit, f.atb} {
				if _, err := os.Stat(p); err != nil {
					hashes[i] = "missing"
				}
			}
			p, err := k.(kind.Prober).Probe(context.Background(), &n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.blocked, "ROOT", f.root), p.Blocked); diff != "" {
				t.Errorf("Blocked (-want +got):\n%s", diff)
			}
			version := tt.found
			if version == "" {
				version = "none"
			}
			wantLines := [][2]string{
				{"toolchain.version", version},
				{"toolchain.setup " + f.toolkit, hashes[0]},
				{"toolchain.setup " + f.atb, hashes[1]},
			}
			if diff := cmp.Diff(wantLines, p.KeyLines); diff != "" {
				t.Errorf("KeyLines (-want +got):\n%s", diff)
			}
			if p.Facts["version"] != tt.found {
				t.Errorf("Facts[version] = %q, want %q", p.Facts["version"], tt.found)
			}
		})
	}
}

func TestProbeKeyLinesFollowScriptContent(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	k := New()
	n := node(t, k, f.root, f.hcl(""))
	before, err := k.(kind.Prober).Probe(context.Background(), &n, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.atb, "export ATB_HOME_PATH=/elsewhere\n")
	after, err := k.(kind.Prober).Probe(context.Background(), &n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(before.KeyLines[2], after.KeyLines[2]) {
		t.Errorf("editing %s left its key line at %v", f.atb, after.KeyLines[2])
	}
	if diff := cmp.Diff(before.KeyLines[:2], after.KeyLines[:2]); diff != "" {
		t.Errorf("other key lines changed (-before +after):\n%s", diff)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"file and command", `setup = ["a"]
version = "1"
probe {
  file    = "x"
  command = ["true"]
  pattern = "(.*)"
}`, "probe sets both file and command"},
		{"pattern with two groups", `setup = ["a"]
version = "1"
probe {
  command = ["true"]
  pattern = "(a)(b)"
}`, "has 2 groups"},
		{"command without pattern", `setup = ["a"]
version = "1"
probe {
  command = ["true"]
}`, "probe.command needs a pattern"},
		{"empty setup", `setup = []
version = "1"`, "setup is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := New()
			n := node(t, k, t.TempDir(), tt.src)
			_, err := k.(kind.Prober).Probe(context.Background(), &n, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Probe error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestProbeDefersUnknownConfig(t *testing.T) {
	k := New()
	cfg := decode(t, k, `setup = ["a"]
version = "1"`)
	m := cfg.AsValueMap()
	m["setup"] = cty.UnknownVal(cty.List(cty.String))
	n := kind.Node{Addr: addr.Node{Kind: "toolchain", Name: "cann"}, Config: cty.ObjectVal(m)}
	p, err := k.(kind.Prober).Probe(context.Background(), &n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Blocked != "" || len(p.KeyLines) != 0 {
		t.Errorf("Probe of unknown config = %+v, want nothing blocked and no key lines", p)
	}
}

func TestExportsBeforeBuild(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	k := New()
	n := node(t, k, f.root, f.hcl(""))
	got := k.Exports(&n)
	if got["env"].IsKnown() {
		t.Errorf("env is known before the build: %#v", got["env"])
	}
	if !got["version"].RawEquals(cty.StringVal("8.3.RC1")) {
		t.Errorf("version = %#v, want 8.3.RC1", got["version"])
	}
}

func TestCancelStopsSetupScript(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	writeFile(t, f.atb, "sleep 60\n")
	k := &Toolchain{Grace: 100 * time.Millisecond}
	n := node(t, k, f.root, f.hcl(""))
	b, _ := newBuild(t, n)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	_, err := k.Build(ctx, b)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Build error = %v, want context.Canceled", err)
	}
}
