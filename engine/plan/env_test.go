package plan

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestExtendEnv(t *testing.T) {
	base := []string{"PATH=/usr/bin:/bin", "PYTHONPATH=/cann/python", "EMPTY="}
	tests := []struct {
		name          string
		before, after map[string][]string
		want          []string
	}{
		{"nothing", nil, nil, base},
		{"prepend to a set variable", map[string][]string{"PYTHONPATH": {"/verl", "/recipe"}}, nil,
			[]string{"PATH=/usr/bin:/bin", "PYTHONPATH=/verl:/recipe:/cann/python", "EMPTY="}},
		{"append", nil, map[string][]string{"PATH": {"/opt/bin"}},
			[]string{"PATH=/usr/bin:/bin:/opt/bin", "PYTHONPATH=/cann/python", "EMPTY="}},
		{"both sides", map[string][]string{"PATH": {"/a"}}, map[string][]string{"PATH": {"/z"}},
			[]string{"PATH=/a:/usr/bin:/bin:/z", "PYTHONPATH=/cann/python", "EMPTY="}},
		{"unset and empty variables get the paths alone", map[string][]string{"LD_LIBRARY_PATH": {"/lib"}}, map[string][]string{"EMPTY": {"/e"}},
			[]string{"PATH=/usr/bin:/bin", "PYTHONPATH=/cann/python", "EMPTY=/e", "LD_LIBRARY_PATH=/lib"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := extendEnv(append([]string(nil), base...), tt.before, tt.after)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("env (-want +got):\n%s", d)
			}
		})
	}
}

// TestBaseEnvFollowsTheEnvironment: the minimal environment is made again
// when a variable it passes changes, appears or goes, and what one node
// does with its copy never reaches another's.
func TestBaseEnvFollowsTheEnvironment(t *testing.T) {
	for _, name := range passEnv {
		t.Setenv(name, "") // restored after the test
		os.Unsetenv(name)
	}
	want := func(want ...string) {
		t.Helper()
		if d := cmp.Diff(want, baseEnv(), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("baseEnv (-want +got):\n%s", d)
		}
	}
	want()
	t.Setenv("HOME", "/home/a")
	t.Setenv("TZ", "UTC")
	want("HOME=/home/a", "TZ=UTC")
	env := MergeEnv(baseEnv(), "HOME=/elsewhere")
	if d := cmp.Diff([]string{"HOME=/elsewhere", "TZ=UTC"}, env); d != "" {
		t.Fatalf("merged env (-want +got):\n%s", d)
	}
	want("HOME=/home/a", "TZ=UTC")
	t.Setenv("HOME", "/home/b")
	want("HOME=/home/b", "TZ=UTC")
	os.Unsetenv("TZ")
	want("HOME=/home/b")
	t.Setenv("TZ", "")
	want("HOME=/home/b", "TZ=")
}
