package toolchain

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kilnbuild/kiln/engine/proc"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"
)

func TestBuildCapturesChangedVariables(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	k := New()
	n := node(t, k, f.root, f.hcl(`env_extra = { SOC_VERSION = "ASCEND910B1", UNTOUCHED = "kept" }`))
	b, log := newBuild(t, n, "LD_LIBRARY_PATH=/opt/base/lib", "UNCHANGED=same", "UNTOUCHED=kept")

	res, err := k.Build(context.Background(), b)
	if err != nil {
		t.Fatalf("Build: %v\nlog:\n%s", err, log)
	}
	toolkit := f.root + "/Ascend/ascend-toolkit/latest"
	atb := f.root + "/Ascend/nnal/atb/latest"
	want := map[string]string{
		"ASCEND_TOOLKIT_HOME": toolkit,
		"ASCEND_HOME_PATH":    toolkit,
		"ATB_HOME_PATH":       atb,
		"LD_LIBRARY_PATH":     atb + "/lib:" + toolkit + "/lib64:" + toolkit + "/" + proc.Arch() + "-linux/devlib:/opt/base/lib",
		"SOC_VERSION":         "ASCEND910B1",
	}

	data, err := os.ReadFile(filepath.Join(b.Dir, EnvFile))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]string
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", EnvFile, err, data)
	}
	if diff := cmp.Diff(want, file); diff != "" {
		t.Errorf("%s (-want +got):\n%s", EnvFile, diff)
	}
	var attr map[string]string
	if err := json.Unmarshal([]byte(res.Attrs["env"]), &attr); err != nil {
		t.Fatalf("Attrs[env] is not JSON: %v", err)
	}
	if diff := cmp.Diff(want, attr); diff != "" {
		t.Errorf("Attrs[env] (-want +got):\n%s", diff)
	}
	if got := res.Exports["env"].AsValueMap(); len(got) != len(want) || !got["SOC_VERSION"].RawEquals(cty.StringVal("ASCEND910B1")) {
		t.Errorf("Exports[env] = %#v, want %d variables", res.Exports["env"], len(want))
	}
	if !res.Exports["version"].RawEquals(cty.StringVal("8.3.RC1")) {
		t.Errorf("Exports[version] = %#v", res.Exports["version"])
	}
	if !strings.Contains(log.String(), "atb environment set") {
		t.Errorf("the scripts' output is not in the log:\n%s", log)
	}
	entries, _ := os.ReadDir(b.Dir)
	if len(entries) != 1 {
		t.Errorf("output folder holds %d entries, want only %s", len(entries), EnvFile)
	}
	if len(res.Digest) != 64 {
		t.Errorf("Digest = %q, want 64 hex characters", res.Digest)
	}
}

func TestBuildDigestIsStableAcrossOutputFolders(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	// A value under the output folder (the shell's working folder) must not
	// make the digest depend on where the store put this run.
	writeFile(t, f.atb, "export ATB_HOME_PATH=/opt/atb\nexport ATB_CACHE=\"$PWD/cache\"\n")
	k := New()
	n := node(t, k, f.root, f.hcl(""))
	var digests []string
	for range 2 {
		b, log := newBuild(t, n)
		res, err := k.Build(context.Background(), b)
		if err != nil {
			t.Fatalf("Build: %v\nlog:\n%s", err, log)
		}
		digests = append(digests, res.Digest)
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of the same toolchain gave digests %s and %s", digests[0], digests[1])
	}

	writeFile(t, f.atb, "export ATB_HOME_PATH=/opt/atb2\nexport ATB_CACHE=\"$PWD/cache\"\n")
	b, _ := newBuild(t, n)
	res, err := k.Build(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Digest == digests[0] {
		t.Errorf("a different captured environment kept digest %s", res.Digest)
	}
}

// A variable's value holding a newline must not read as two variables: the
// digest's lines are escaped, so ZA="a\nenv ZB=c" and ZA=a, ZB=c differ.
func TestBuildDigestNewlineCannotForgeALine(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	k := New()
	forged := `env_extra = { ZA = "a\nenv ZB=c" }`
	plain := `env_extra = { ZA = "a", ZB = "c" }`
	var digests []string
	for _, extra := range []string{forged, plain} {
		b, log := newBuild(t, node(t, k, f.root, f.hcl(extra)))
		res, err := k.Build(context.Background(), b)
		if err != nil {
			t.Fatalf("Build with %s: %v\nlog:\n%s", extra, err, log)
		}
		digests = append(digests, res.Digest)
	}
	if digests[0] == digests[1] {
		t.Errorf("ZA=\"a\\nenv ZB=c\" and ZA=a, ZB=c gave the same digest %s", digests[0])
	}
}

func TestBuildFailingSetupScript(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	writeFile(t, f.atb, "echo 'atb: libatb.so missing, reinstall nnal' >&2\nexit 1\n")
	k := New()
	n := node(t, k, f.root, f.hcl(""))
	b, log := newBuild(t, n)
	_, err := k.Build(context.Background(), b)
	if err == nil {
		t.Fatal("Build succeeded with a failing setup script")
	}
	for _, want := range []string{"toolchain cann", f.atb, "libatb.so missing, reinstall nnal", "exit status 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if !strings.Contains(log.String(), "libatb.so missing") {
		t.Errorf("stderr is not in the log:\n%s", log)
	}
}

func TestBuildRechecksVersion(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	k := New()
	n := node(t, k, f.root, f.hcl(""))
	writeFile(t, f.info, "version=8.2.RC1\n")
	b, _ := newBuild(t, n)
	_, err := k.Build(context.Background(), b)
	if err == nil || !strings.Contains(err.Error(), "version 8.2.RC1 found in "+f.info+", 8.3.RC1 required") {
		t.Fatalf("Build error = %v, want the version mismatch", err)
	}
}

func TestEnvFromAttrs(t *testing.T) {
	f := newFakeCANN(t, "8.3.RC1")
	k := New()
	n := node(t, k, f.root, f.hcl(`env_extra = { "AAA_FIRST" = "x=y" }`))
	b, _ := newBuild(t, n)
	res, err := k.Build(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EnvFromAttrs(res.Attrs)
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]string
	data, err := os.ReadFile(filepath.Join(b.Dir, EnvFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range slices.Sorted(maps.Keys(file)) {
		want = append(want, k+"="+file[k])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EnvFromAttrs (-want +got):\n%s", diff)
	}
	if got[0] != "AAA_FIRST=x=y" {
		t.Errorf("first variable = %q, want AAA_FIRST=x=y (sorted, value kept whole)", got[0])
	}

	for _, attrs := range []map[string]string{nil, {"env": "not json"}, {"env": `{"A": 1}`}} {
		if _, err := EnvFromAttrs(attrs); err == nil || !strings.Contains(err.Error(), "rebuild the toolchain") {
			t.Errorf("EnvFromAttrs(%v) error = %v, want one saying to rebuild", attrs, err)
		}
	}
}
