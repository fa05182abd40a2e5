package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
)

func TestBuild(t *testing.T) {
	f := newFakeHost(t, npuSmiList(8, true), "8.3.RC1")
	k := New()
	n := node(t, k, f.dir, f.hcl("npus = 8\ncann = \"8.3.RC1\""))
	p := probe(t, k, n)
	b := &kind.Build{Node: n, Dir: t.TempDir(), Log: &bytes.Buffer{}, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}}
	res, err := k.Build(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(b.Dir, FactsFile))
	if err != nil {
		t.Fatal(err)
	}
	var written map[string]string
	if err := json.Unmarshal(data, &written); err != nil {
		t.Fatalf("%s: %v", FactsFile, err)
	}
	if diff := cmp.Diff(p.Facts, written); diff != "" {
		t.Errorf("%s differs from the probed facts (-probe +file):\n%s", FactsFile, diff)
	}
	if diff := cmp.Diff(p.Facts, res.Attrs); diff != "" {
		t.Errorf("Attrs differ from the probed facts (-probe +attrs):\n%s", diff)
	}
	if want := digest([][2]string{{"host.cann", "8.3.RC1"}, {"host.npus", "8"}}); res.Digest != want {
		t.Errorf("Digest = %s, want %s", res.Digest, want)
	}

	// A fact no requirement names does not change the digest.
	writeFile(t, f.firmware, "Version=7.6.0.1.1\n", 0o644)
	res2, err := k.Build(context.Background(), &kind.Build{Node: n, Dir: t.TempDir(), Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Digest != res.Digest {
		t.Errorf("a firmware change moved the digest of a host that requires no firmware")
	}
}

func TestBuildRefusesUnmetRequirements(t *testing.T) {
	f := newFakeHost(t, npuSmiList(8, true), "8.2.RC1")
	k := New()
	n := node(t, k, f.dir, f.hcl(`cann = "8.3.RC1"`))
	dir := t.TempDir()
	_, err := k.Build(context.Background(), &kind.Build{Node: n, Dir: dir, Log: &bytes.Buffer{}})
	if err == nil || err.Error() != "host a2: needs CANN 8.3.RC1, found 8.2.RC1" {
		t.Fatalf("Build error = %v, want the unmet requirement", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FactsFile)); !os.IsNotExist(err) {
		t.Errorf("a refused build wrote %s", FactsFile)
	}
}
