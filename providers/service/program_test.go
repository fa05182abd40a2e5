package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/kind"
)

// TestProgram: a list command's program is looked up as Build starts it —
// in the service's dir, on the node's PATH with env on top; a shell string
// or a not yet known environment names none.
func TestProgram(t *testing.T) {
	type got struct {
		Name, Dir string
		Env       []string
		OK        bool
	}
	nodeEnv := []string{"PATH=/toolchain/bin:/usr/bin", "HOME=/home/u"}
	tests := []struct {
		name string
		src  string
		env  []string
		want got
	}{
		{
			name: "list command, default dir",
			src:  `command = ["serve", "--port", 8080]`,
			env:  nodeEnv,
			want: got{Name: "serve", Dir: "/out", Env: nodeEnv, OK: true},
		},
		{
			name: "env on top of the node's PATH, relative dir",
			src: `
command = ["bin/serve"]
dir     = "sandbox"
env     = { PATH = "/venv/bin:/usr/bin" }`,
			env:  nodeEnv,
			want: got{Name: "bin/serve", Dir: "/root/sandbox", Env: []string{"HOME=/home/u", "PATH=/venv/bin:/usr/bin"}, OK: true},
		},
		{name: "shell string", src: `command = "make run"`, env: nodeEnv},
		{name: "environment not known yet", src: `command = ["serve"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &kind.Node{Config: decode(t, tt.src), Root: "/root", Out: "/out", Env: tt.env}
			var g got
			g.Name, g.Dir, g.Env, g.OK = New().(*Service).Program(n)
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("Program (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildFindsProgramOnRelativePathInDir: a relative PATH folder is taken
// from the service's dir, as for exec, not from kiln's working folder.
func TestBuildFindsProgramOnRelativePathInDir(t *testing.T) {
	b := newBuild(t, decode(t, `
command = ["serve-kiln-test"]
dir     = "app"
env     = { PATH = "tools:/usr/bin:/bin" }`))
	tools := filepath.Join(b.Root, "app", "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nexec sleep 60\n"
	if err := os.WriteFile(filepath.Join(tools, "serve-kiln-test"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := build(t, context.Background(), b); err != nil {
		t.Fatalf("Build: %v\n%s", err, b.Log)
	}
}
