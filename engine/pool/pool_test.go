package pool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseIDs(t *testing.T) {
	tests := []struct {
		in   string
		want IDs
		err  string
	}{
		{"0-7", IDs{0, 1, 2, 3, 4, 5, 6, 7}, ""},
		{"0-3,6", IDs{0, 1, 2, 3, 6}, ""},
		{"7,5, 6", IDs{5, 6, 7}, ""},
		{"5-5", IDs{5}, ""},
		{"3-1", nil, "not a range"},
		{"0,,1", nil, "empty item"},
		{"a-b", nil, "not a device id"},
		{"0-3,2", nil, "listed twice"},
		{"0-99999999", nil, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseIDs(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseIDs(%q) error = %v, want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseIDs(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseIDs(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestIDsText(t *testing.T) {
	tests := []struct {
		ids       IDs
		str, list string
	}{
		{IDs{0, 1, 2, 4, 5, 6, 7}, "0-2,4-7", "0,1,2,4,5,6,7"},
		{IDs{3}, "3", "3"},
		{IDs{1, 3, 5}, "1,3,5", "1,3,5"},
		{IDs{}, "none", ""},
	}
	for _, tt := range tests {
		if got := tt.ids.String(); got != tt.str {
			t.Errorf("%v.String() = %q, want %q", []int(tt.ids), got, tt.str)
		}
		if got := tt.ids.List(); got != tt.list {
			t.Errorf("%v.List() = %q, want %q", []int(tt.ids), got, tt.list)
		}
		back, err := ParseIDs(tt.ids.List())
		if len(tt.ids) > 0 && (err != nil || !cmp.Equal(back, tt.ids)) {
			t.Errorf("ParseIDs(List()) = %v, %v; want %v", back, err, tt.ids)
		}
	}
}

func TestParseResource(t *testing.T) {
	tests := []struct {
		in   string
		name string
		want Given
		err  bool
	}{
		{"npu=8", "npu", Given{Count: 8}, false},
		{"npu=0", "npu", Given{Count: 0}, false},
		{"npu=0-3", "npu", Given{Count: 4, IDs: IDs{0, 1, 2, 3}}, false},
		{"gpu=4,5", "gpu", Given{Count: 2, IDs: IDs{4, 5}}, false},
		{"npu=-1", "", Given{}, true},
		{"npu", "", Given{}, true},
		{"=8", "", Given{}, true},
		{"npu=lots", "", Given{}, true},
		// A count is bounded: device ids are made for it.
		{"npu=65536", "npu", Given{Count: 65536}, false},
		{"npu=99999999999", "", Given{}, true},
		{"gpu=65537", "", Given{}, true},
		{"mem_mb=2000000", "mem_mb", Given{Count: 2000000}, false},
		{"mem_mb=1000000000001", "", Given{}, true},
	}
	for _, tt := range tests {
		name, got, err := ParseResource(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("ParseResource(%q) error = %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if err != nil {
			if !strings.Contains(err.Error(), "-resource") {
				t.Errorf("ParseResource(%q) error %q does not name the flag", tt.in, err)
			}
			continue
		}
		if name != tt.name {
			t.Errorf("ParseResource(%q) name = %q, want %q", tt.in, name, tt.name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseResource(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func strp(s string) *string { return &s }

// TestResolveBoundsDeviceCount: a count for a pool that exports ids makes
// at most MaxDevices of them, however large the count.
func TestResolveBoundsDeviceCount(t *testing.T) {
	set := Resolve(Sources{Specs: map[string]*Spec{"tpu": {Name: "tpu", Env: strp("TPU_IDS")}}, Given: map[string]Given{"tpu": {Count: MaxCount}}})
	if p := set["tpu"]; p == nil || p.Size != MaxDevices {
		t.Fatalf("tpu pool = %+v, want %d devices", p, MaxDevices)
	}
}

func TestResolve(t *testing.T) {
	// An 8-card host whose card 3 reports health Warning.
	host := &Host{Addr: "host.a2", IDs: IDs{0, 1, 2, 4, 5, 6, 7}, Excluded: []Exclusion{{ID: 3, Why: "health Warning"}}}
	warn := []Exclusion{{ID: 3, Why: "health Warning"}}
	groups := []IDs{{0, 1, 2, 3}, {4, 5, 6, 7}}
	tests := []struct {
		name string
		src  Sources
		want Set
	}{
		{
			name: "nothing known: cpu only",
			src:  Sources{CPUs: 4},
			want: Set{"cpu": {Name: "cpu", Size: 4, From: "this machine"}},
		},
		{
			name: "host devices, unhealthy one excluded",
			src:  Sources{Host: host},
			want: Set{"npu": {Name: "npu", Size: 7, Devices: IDs{0, 1, 2, 4, 5, 6, 7}, Env: "ASCEND_RT_VISIBLE_DEVICES", Excluded: warn, From: "host.a2"}},
		},
		{
			name: "a count takes the first healthy host devices",
			src:  Sources{Host: host, Given: map[string]Given{"npu": {Count: 4}}},
			want: Set{"npu": {Name: "npu", Size: 4, Devices: IDs{0, 1, 2, 4}, Env: "ASCEND_RT_VISIBLE_DEVICES", Excluded: warn, From: "-resource"}},
		},
		{
			name: "given ids beat the host's, which still exclude",
			src:  Sources{Host: host, Given: map[string]Given{"npu": {Count: 5, IDs: IDs{2, 3, 4, 8, 9}}}},
			want: Set{"npu": {Name: "npu", Size: 2, Devices: IDs{2, 4}, Env: "ASCEND_RT_VISIBLE_DEVICES", From: "-resource", Excluded: []Exclusion{
				{ID: 3, Why: "health Warning"}, {ID: 8, Why: "not listed by npu-smi on host.a2"}, {ID: 9, Why: "not listed by npu-smi on host.a2"},
			}}},
		},
		{
			name: "a count on an npu pool without a host means ids 0..N-1",
			src:  Sources{Given: map[string]Given{"npu": {Count: 8}}},
			want: Set{"npu": {Name: "npu", Size: 8, Devices: IDs{0, 1, 2, 3, 4, 5, 6, 7}, Env: "ASCEND_RT_VISIBLE_DEVICES", From: "-resource"}},
		},
		{
			name: "a count on a pool without a variable is counted",
			src:  Sources{Given: map[string]Given{"mem": {Count: 64}}},
			want: Set{"mem": {Name: "mem", Size: 64, From: "-resource"}},
		},
		{
			name: "a pool block declares gpu ids, groups and the variable",
			src:  Sources{Specs: map[string]*Spec{"gpu": {Name: "gpu", Devices: IDs{0, 1, 2, 3, 4, 5, 6, 7}, Groups: groups, Env: strp("MY_GPUS")}}},
			want: Set{"gpu": {Name: "gpu", Size: 8, Devices: IDs{0, 1, 2, 3, 4, 5, 6, 7}, Groups: groups, Env: "MY_GPUS", From: "pool block"}},
		},
		{
			name: "a pool block without ids keeps the host's, with its groups",
			src:  Sources{Host: host, Specs: map[string]*Spec{"npu": {Name: "npu", Groups: groups}}},
			want: Set{"npu": {Name: "npu", Size: 7, Devices: IDs{0, 1, 2, 4, 5, 6, 7}, Groups: groups, Env: "ASCEND_RT_VISIBLE_DEVICES", Excluded: warn, From: "host.a2"}},
		},
		{
			name: "a pool block on a machine without the devices: no pool",
			src:  Sources{Specs: map[string]*Spec{"npu": {Name: "npu", Groups: groups}}},
			want: Set{},
		},
		{
			name: "env = \"\" places ids without exporting them",
			src:  Sources{Specs: map[string]*Spec{"npu": {Name: "npu", Devices: IDs{0, 1}, Env: strp("")}}},
			want: Set{"npu": {Name: "npu", Size: 2, Devices: IDs{0, 1}, From: "pool block"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(tt.src)
			if tt.src.CPUs == 0 {
				delete(got, "cpu")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBlocked(t *testing.T) {
	host := &Host{Addr: "host.a2", IDs: IDs{0, 1, 2, 4, 5, 6, 7}, Excluded: []Exclusion{{ID: 3, Why: "health Warning"}}}
	set := Resolve(Sources{Host: host, Given: map[string]Given{"mem": {Count: 2}}})
	tests := []struct {
		resources map[string]int64
		want      string
	}{
		{map[string]int64{"npu": 7, "mem": 2}, ""},
		{map[string]int64{"npu": 8}, "needs npu=8 but the npu pool has 7 devices (0-2,4-7); npu 3: health Warning, excluded"},
		{map[string]int64{"mem": 3}, "needs mem=3 but this machine has 2 (set the pool with -resource mem=N)"},
		{map[string]int64{"scratch": 1000}, ""},
	}
	for _, tt := range tests {
		if got := set.Blocked(tt.resources); got != tt.want {
			t.Errorf("Blocked(%v) = %q, want %q", tt.resources, got, tt.want)
		}
	}
}
