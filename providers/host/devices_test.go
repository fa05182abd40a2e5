package host

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/pool"
	"github.com/kilnbuild/kiln/providers/host/hosttest"
)

func TestDevices(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		devices  string
		excluded string
		reason   string
	}{
		{"eight healthy cards", hosttest.NPUSmi(8, nil), "0-7", "", ""},
		{"card 3 unhealthy", hosttest.NPUSmi(8, map[int]string{3: "Warning"}), "0-2,4-7", "3: health Warning", ""},
		{"two unhealthy", hosttest.NPUSmi(8, map[int]string{0: "Alarm", 7: "Critical"}), "1-6", "0: health Alarm; 7: health Critical", ""},
		{"a container with cards 4-7: logic ids 0-3", hosttest.NPUSmiCards([]int{4, 5, 6, 7}, map[int]string{5: "Warning"}, map[int]int{4: 0, 5: 1, 6: 2, 7: 3}), "0,2-3", "1: health Warning", ""},
		{"only info -l answers: NPU IDs, health unknown", npuSmiList(4, true), "0-3", "", "health unknown"},
		{"no npu-smi", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHost(t, tt.script, "8.3.RC1")
			k := New()
			p := probe(t, k, node(t, k, f.dir, f.hcl("")))
			got := map[string]string{"devices": p.Facts["devices"], "excluded": p.Facts["devices.excluded"]}
			want := map[string]string{"devices": tt.devices, "excluded": tt.excluded}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("facts (-want +got):\n%s", diff)
			}
			if r := p.Facts["devices.reason"]; !strings.Contains(r, tt.reason) || (tt.reason == "") != (r == "") {
				t.Errorf("devices.reason = %q, want one containing %q", r, tt.reason)
			}
		})
	}
}

func TestDevicesFromFacts(t *testing.T) {
	f := newFakeHost(t, hosttest.NPUSmi(8, map[int]string{3: "Warning"}), "8.3.RC1")
	k := New()
	p := probe(t, k, node(t, k, f.dir, f.hcl("")))
	want := &pool.Host{Addr: "host.a2", IDs: pool.IDs{0, 1, 2, 4, 5, 6, 7}, Excluded: []pool.Exclusion{{ID: 3, Why: "health Warning"}}}
	if diff := cmp.Diff(want, pool.FromFacts("host.a2", p.Facts)); diff != "" {
		t.Errorf("FromFacts (-want +got):\n%s", diff)
	}
	if got := pool.FromFacts("host.a2", map[string]string{"npus": "0", "devices": ""}); got != nil {
		t.Errorf("FromFacts of a host without NPUs = %+v, want nil", got)
	}
}
