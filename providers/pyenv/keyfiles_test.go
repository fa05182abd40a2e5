package pyenv

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

func TestKeyFiles(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, ".kiln")
	writeFile(t, filepath.Join(root, "reqs", "main.txt"), "-r common.txt\n--constraint=pins.txt\nnumpy  # -r not-a-file.txt\n-r ${HOME}/x.txt\n-r "+state+"/out/up/req.txt\n")
	writeFile(t, filepath.Join(root, "reqs", "common.txt"), "-rmain.txt\n-c ../top.txt\n")
	writeFile(t, filepath.Join(root, "reqs", "pins.txt"), "torch==2.7.1\n")
	writeFile(t, filepath.Join(root, "top.txt"), "ray==2.46.0\n")
	writeWheel(t, filepath.Join(root, "dist"), "a", "1.0")
	writeWheel(t, filepath.Join(state, "out", "exec.w"), "b", "1.0")
	n := &kind.Node{Root: root, State: state, Config: decodeHCL(t, `
install {
  requirements = ["reqs/main.txt", "`+state+`/out/git_repo.verl/requirements-npu.txt"]
  wheels       = ["dist/*.whl", "`+state+`/out/exec.w/*.whl", "missing/*.whl"]
}
install {
  requirements = ["reqs/main.txt"]
}
`)}
	want := []string{
		filepath.Join(root, "dist", "a-1.0-py3-none-any.whl"),
		filepath.Join(root, "reqs", "common.txt"),
		filepath.Join(root, "reqs", "main.txt"),
		filepath.Join(root, "reqs", "pins.txt"),
		filepath.Join(root, "top.txt"),
	}
	if d := cmp.Diff(want, New().(*PythonEnv).KeyFiles(n)); d != "" {
		t.Errorf("key files (-want +got):\n%s", d)
	}
}

// At plan time a requirements path may depend on an upstream node that has
// not run: it is skipped, the others are listed.
func TestKeyFilesWithUnknowns(t *testing.T) {
	root := t.TempDir()
	step := cty.ObjectVal(map[string]cty.Value{
		"requirements": cty.ListVal([]cty.Value{cty.StringVal("a.txt"), cty.UnknownVal(cty.String)}),
		"wheels":       cty.UnknownVal(stringList),
	})
	n := &kind.Node{Root: root, Config: cty.ObjectVal(map[string]cty.Value{"install": cty.TupleVal([]cty.Value{step})})}
	if d := cmp.Diff([]string{filepath.Join(root, "a.txt")}, keyFiles(n)); d != "" {
		t.Errorf("key files (-want +got):\n%s", d)
	}
	if got := keyFiles(&kind.Node{Config: cty.UnknownVal(cty.DynamicPseudoType)}); got != nil {
		t.Errorf("unknown config: %v", got)
	}
}
