package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveProgram: the program line names what the build would run —
// the first match on PATH, through symlinks — with a digest for programs in
// the pipeline folder and none for those outside it or in the state folder.
func TestResolveProgram(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, ".kiln")
	system := t.TempDir()
	exe := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe(filepath.Join(system, "python3.11"), "#!/bin/sh\n")
	exe(filepath.Join(system, "python3.12"), "#!/bin/sh\n")
	if err := os.Symlink("python3.11", filepath.Join(system, "python3")); err != nil {
		t.Fatal(err)
	}
	exe(filepath.Join(root, "scripts/train.sh"), "#!/bin/sh\necho v1\n")
	exe(filepath.Join(state, "out/python_env.v/bin/python"), "#!/bin/sh\n")
	path := func(dirs ...string) []string { return []string{"PATH=" + strings.Join(dirs, ":")} }

	line := func(name, dir string, env []string) string {
		t.Helper()
		p, err := ResolveProgram(root, state, name, dir, env, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return strings.TrimPrefix(p.Line().Text(), "program ")
	}
	if got, want := line("python3", root, path(system)), "python3 "+filepath.Join(system, "python3.11"); got != want {
		t.Errorf("python3 on PATH: %q, want %q (through the symlink, no digest outside the pipeline)", got, want)
	}
	if got := line("./scripts/train.sh", root, nil); !strings.HasPrefix(got, "./scripts/train.sh $KILN_ROOT/scripts/train.sh ") || len(got) != len("./scripts/train.sh $KILN_ROOT/scripts/train.sh ")+64 {
		t.Errorf("program in the pipeline: %q, want its $KILN_ROOT path and digest", got)
	}
	if got, want := line("python", root, path(filepath.Join(state, "out/python_env.v/bin"), system)), "python $KILN_STATE/out/python_env.v/bin/python"; got != want {
		t.Errorf("program in an upstream output: %q, want %q (its node's digest keys it)", got, want)
	}

	// Through an upstream's stable link, which points at a run folder of
	// the store: the line names the place inside the result, not the run
	// folder, which every run of the upstream's key names anew.
	key := strings.Repeat("ab", 32)
	link := filepath.Join(state, "out/python_env.w")
	var lines []string
	for _, run := range []string{"0123456789", "9876543210"} {
		folder := filepath.Join(state, "store", "ab", key+"-"+run)
		exe(filepath.Join(folder, "bin/python"), "#!/bin/sh\n")
		os.Remove(link)
		if err := os.Symlink(folder, link); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line("python", root, path(filepath.Join(link, "bin"), system)))
	}
	if want := "python $KILN_UPSTREAM/bin/python"; lines[0] != want || lines[1] != want {
		t.Errorf("program in an upstream's result, two runs of its key: %q, want %q both times", lines, want)
	}

	before := line("python3", root, path(system))
	if err := os.Remove(filepath.Join(system, "python3")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("python3.12", filepath.Join(system, "python3")); err != nil {
		t.Fatal(err)
	}
	if after := line("python3", root, path(system)); after == before {
		t.Errorf("repointing python3 did not change the line %q", after)
	}
	scriptBefore := line("scripts/train.sh", root, nil)
	exe(filepath.Join(root, "scripts/train.sh"), "#!/bin/sh\necho v2\n")
	if line("scripts/train.sh", root, nil) == scriptBefore {
		t.Error("editing the script did not change the line")
	}

	if _, err := ResolveProgram(root, state, "no-such-program", root, path(system), nil); err == nil || !strings.Contains(err.Error(), "not found on PATH") {
		t.Errorf("missing program: %v, want a not-found error", err)
	}
}
