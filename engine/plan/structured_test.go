package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStructuredReasons(t *testing.T) {
	tests := []struct {
		name     string
		old, cur string
		want     []Reason
	}{
		{"map of values", `{"lr":0.1,"layers":[1,2]}`, `{"lr":0.2,"layers":[1,3]}`, []Reason{
			{Kind: "attribute", Subject: "a", Path: "layers[1]", Old: "2", New: "3"},
			{Kind: "attribute", Subject: "a", Path: "lr", Old: "0.1", New: "0.2"},
		}},
		{"jsonencode inside a map", `{"PARAMS":"{\"featurize\":{\"max_features\":30}}"}`, `{"PARAMS":"{\"featurize\":{\"max_features\":50}}"}`, []Reason{
			{Kind: "attribute", Subject: "a", Path: "PARAMS.featurize.max_features", Old: "30", New: "50"},
		}},
		{"JSON in a command line", `"python train.py --params '{\"n_est\":10,\"seed\":1}' --out x"`, `"python train.py --params '{\"n_est\":20,\"seed\":1}' --out x"`, []Reason{
			{Kind: "attribute", Subject: "a", Path: "n_est", Old: "10", New: "20"},
		}},
		{"key added and removed", `{"a":1}`, `{"b":"x y"}`, []Reason{
			{Kind: "attribute", Subject: "a", Path: "a", Old: "1", New: "(unset)"},
			{Kind: "attribute", Subject: "a", Path: "b", Old: "(unset)", New: `"x y"`},
		}},
		{"plain strings", `"make all"`, `"make test"`, nil},
		{"JSON before the change only", `"x '{\"a\":1}' y"`, `"x '{\"a\":1}' z"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, structuredReasons("a", tt.old, tt.cur)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
