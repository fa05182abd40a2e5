package sched

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	capacity := map[string]int64{"npu": 8}
	tests := []struct {
		name     string
		tasks    []Task
		want     []error // each must match with errors.Is
		capacity *CapacityError
	}{
		{name: "ok", tasks: []Task{{}, {Deps: []int{0}, Resources: map[string]int64{"npu": 8, "disk": 1e12}}}},
		{name: "empty", tasks: nil},
		{name: "out of range", tasks: []Task{{Deps: []int{1}}}, want: []error{ErrInvalidTask}},
		{name: "negative index", tasks: []Task{{}, {Deps: []int{-1}}}, want: []error{ErrInvalidTask}},
		{name: "negative amount", tasks: []Task{{Resources: map[string]int64{"npu": -2}}}, want: []error{ErrInvalidTask}},
		{
			name:     "over capacity",
			tasks:    []Task{{}, {Resources: map[string]int64{"npu": 9}}},
			capacity: &CapacityError{Task: 1, Resource: "npu", Asked: 9, Capacity: 8},
		},
		{name: "self", tasks: []Task{{Deps: []int{0}}}, want: []error{ErrCycle}},
		{name: "cycle", tasks: []Task{{}, {Deps: []int{0, 2}}, {Deps: []int{1}}}, want: []error{ErrCycle}},
		{
			name:     "several problems at once",
			tasks:    []Task{{Deps: []int{5}}, {Resources: map[string]int64{"npu": 64}}},
			want:     []error{ErrInvalidTask},
			capacity: &CapacityError{Task: 1, Resource: "npu", Asked: 64, Capacity: 8},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.tasks, capacity)
			if len(tt.want) == 0 && tt.capacity == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate = nil, want an error")
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("Validate = %v, want it to wrap %v", err, w)
				}
			}
			if tt.capacity != nil {
				var got *CapacityError
				if !errors.As(err, &got) {
					t.Fatalf("Validate = %v, want a *CapacityError", err)
				}
				if diff := cmp.Diff(tt.capacity, got); diff != "" {
					t.Errorf("CapacityError (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCriticalPath(t *testing.T) {
	// 0 <- 1 <- 3, 0 <- 2 <- 3, 4 alone; 3 is the only sink besides 4.
	diamond := []Task{{}, {Deps: []int{0}}, {Deps: []int{0}}, {Deps: []int{1, 2}}, {}}
	tests := []struct {
		name   string
		tasks  []Task
		weight func(int) int64
		want   []int
	}{
		{"unit weights", diamond, nil, []int{3, 2, 2, 1, 1}},
		{"durations", diamond, func(i int) int64 { return []int64{10, 5, 50, 1, 7}[i] }, []int{61, 6, 51, 1, 7}},
		{"negative counts zero", diamond, func(i int) int64 { return -3 }, []int{0, 0, 0, 0, 0}},
		{"chain", []Task{{}, {Deps: []int{0}}, {Deps: []int{1}}}, nil, []int{3, 2, 1}},
		{"bad deps ignored", []Task{{Deps: []int{9, -1}}, {Deps: []int{0}}}, nil, []int{2, 1}},
		{"cycle does not hang", []Task{{Deps: []int{1}}, {Deps: []int{0}}, {Deps: []int{}}}, nil, []int{1, 1, 1}},
		{"saturates", []Task{{}, {Deps: []int{0}}}, func(int) int64 { return 1 << 62 }, []int{1<<63 - 1, 1 << 62}},
		{"empty", nil, nil, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, CriticalPath(tt.tasks, tt.weight)); diff != "" {
				t.Errorf("CriticalPath (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutcomeString(t *testing.T) {
	got := []string{Pending.String(), Succeeded.String(), Failed.String(), Skipped.String(), Cancelled.String(), Outcome(9).String()}
	want := []string{"pending", "succeeded", "failed", "skipped", "cancelled", "Outcome(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
