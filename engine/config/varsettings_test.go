package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// TestObjectVariableSettings: an object variable takes a partial object or
// one attribute from every source, applied in precedence order onto the
// value below it.
func TestObjectVariableSettings(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.hcl", `
variable "train" {
  type    = object({ n_est = number, depth = number, opt = object({ lr = number, name = string }) })
  default = { n_est = 3, depth = 2, opt = { lr = 0.1, name = "adam" } }
}
exec "a" { command = "echo ${var.train.n_est}" }
`)
	jsonFile := write(t, dir, "params.json", `{"train": {"n_est": 7}}`)
	yamlFile := write(t, dir, "params.yaml", "train:\n  n_est: 7\n  opt:\n    lr: 0.5\n")
	hclFile := write(t, dir, "params.kilnvars", "train = { depth = 9 }\n")
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"default", Options{}, `{"depth":2,"n_est":3,"opt":{"lr":0.1,"name":"adam"}}`},
		{"-var object", Options{Vars: map[string]string{"train": "{n_est=7}"}}, `{"depth":2,"n_est":7,"opt":{"lr":0.1,"name":"adam"}}`},
		{"-var attribute", Options{Vars: map[string]string{"train.n_est": "7"}}, `{"depth":2,"n_est":7,"opt":{"lr":0.1,"name":"adam"}}`},
		{"-var nested attribute", Options{Vars: map[string]string{"train.opt.name": "sgd"}}, `{"depth":2,"n_est":3,"opt":{"lr":0.1,"name":"sgd"}}`},
		{"attribute refines whole", Options{Vars: map[string]string{"train.n_est": "7", "train": "{depth=5}"}}, `{"depth":5,"n_est":7,"opt":{"lr":0.1,"name":"adam"}}`},
		{"env dotted", Options{Env: []string{"KILN_VAR_train.n_est=7"}}, `{"depth":2,"n_est":7,"opt":{"lr":0.1,"name":"adam"}}`},
		{"env underscores", Options{Env: []string{"KILN_VAR_train__n_est=7"}}, `{"depth":2,"n_est":7,"opt":{"lr":0.1,"name":"adam"}}`},
		{"env object", Options{Env: []string{"KILN_VAR_train={depth=4}"}}, `{"depth":4,"n_est":3,"opt":{"lr":0.1,"name":"adam"}}`},
		{"json file", Options{VarFiles: []string{jsonFile}}, `{"depth":2,"n_est":7,"opt":{"lr":0.1,"name":"adam"}}`},
		{"yaml file", Options{VarFiles: []string{yamlFile}}, `{"depth":2,"n_est":7,"opt":{"lr":0.5,"name":"adam"}}`},
		{"files in order", Options{VarFiles: []string{yamlFile, hclFile}}, `{"depth":9,"n_est":7,"opt":{"lr":0.5,"name":"adam"}}`},
		{"flag beats file beats env", Options{Env: []string{"KILN_VAR_train__n_est=5", "KILN_VAR_train__depth=5"}, VarFiles: []string{hclFile}, Vars: map[string]string{"train.n_est": "8"}},
			`{"depth":9,"n_est":8,"opt":{"lr":0.1,"name":"adam"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Kinds = []kind.Kind{exec.New()}
			if c.o.Env == nil {
				c.o.Env = []string{}
			}
			p, diags := Load(dir, c.o)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			v := p.Variables["train"].Value
			b, err := ctyjson.Marshal(v, v.Type())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, string(b)); diff != "" {
				t.Errorf("train (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVariableSettingErrors(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.hcl", `
variable "train" {
  type    = object({ n_est = number })
  default = { n_est = 3 }
}
variable "name" {
  type    = string
  default = "x"
}
exec "a" { command = "echo ${var.train.n_est} ${var.name}" }
`)
	badYAML := write(t, dir, "list.yaml", "- 1\n- 2\n")
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"unknown attribute", Options{Vars: map[string]string{"train.nope": "1"}}, `no attribute "nope" (it has n_est)`},
		{"attribute of a string", Options{Vars: map[string]string{"name.x": "1"}}, "not an object: set it whole"},
		{"undeclared", Options{Vars: map[string]string{"trian.n_est": "1"}}, `Did you mean "train"?`},
		{"wrong type", Options{Vars: map[string]string{"train.n_est": "many"}}, "var.train"},
		{"yaml not a mapping", Options{VarFiles: []string{badYAML}}, "must hold a mapping"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Kinds = []kind.Kind{exec.New()}
			c.o.Env = []string{}
			_, diags := Load(dir, c.o)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			if !strings.Contains(diags.Error(), c.want) {
				t.Errorf("error %q does not mention %q", diags.Error(), c.want)
			}
		})
	}
}

// TestVarFileProblemsSayWhatToDo: a -var-file that is missing or a folder
// is named with what to do, not as a bare OS error.
func TestVarFileProblemsSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "vars")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, folder, "prod.json", `{}`)
	for _, c := range []struct{ file, want string }{
		{filepath.Join(dir, "nope.tfvars"), "there is no such file"},
		{filepath.Join(dir, "nope.tfvars"), "a relative path is read from the folder kiln runs in"},
		{folder, "is a folder; name a file in it, such as -var-file " + filepath.Join(folder, "prod.json")},
	} {
		_, diags := load(t, `exec "a" { command = "x" }`, Options{VarFiles: []string{c.file}})
		if !strings.Contains(diags.Error(), "-var-file "+c.file) || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("-var-file %s: %s, want %q", c.file, diags.Error(), c.want)
		}
	}
}
