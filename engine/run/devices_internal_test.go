package run

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/pool"
)

func TestDeviceEnvAndLogLine(t *testing.T) {
	pools := pool.Resolve(pool.Sources{
		Given: map[string]pool.Given{"npu": {Count: 8}},
		Specs: map[string]*pool.Spec{"fpga": {Name: "fpga", Devices: pool.IDs{0, 1}}},
	})
	held := map[string][]int{"npu": {4, 5, 6, 7}, "fpga": {1}}
	if diff := cmp.Diff([]string{"ASCEND_RT_VISIBLE_DEVICES=4,5,6,7"}, deviceEnv(held, pools)); diff != "" {
		t.Errorf("deviceEnv (-want +got):\n%s", diff)
	}
	want := "kiln: holds fpga 1, npu 4-7 (ASCEND_RT_VISIBLE_DEVICES=4,5,6,7)\n"
	if got := deviceLogLine(held, pools); got != want {
		t.Errorf("deviceLogLine = %q, want %q", got, want)
	}
}
