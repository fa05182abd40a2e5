package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
