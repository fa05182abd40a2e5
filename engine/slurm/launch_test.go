package slurm

import (
	"net"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJobEnv(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		want    []string
	}{
		{"outside a job", []string{"PATH=/bin", "SLURM_CPUS_PER_TASK=4"}, nil},
		{"steps inherit the command's environment", []string{"SLURM_JOB_ID=7", "SLURM_EXPORT_ENV=NONE"}, []string{"SLURM_EXPORT_ENV=ALL"}},
		{"cpus per task", []string{"SLURM_JOB_ID=7", "SLURM_CPUS_PER_TASK=2"}, []string{"SLURM_EXPORT_ENV=ALL", "KILN_CPUS=2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, JobEnv(tc.environ)); diff != "" {
				t.Errorf("JobEnv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLaunchEnv(t *testing.T) {
	l := Launch{JobID: "7", Nodes: batchFirst([]string{"a1", "a2", "a3"}, "a2"), Head: "10.0.0.2", Port: 29500}
	want := []string{"KILN_NODES=a2 a1 a3", "KILN_NODE_COUNT=3", "MASTER_ADDR=10.0.0.2", "MASTER_PORT=29500"}
	if diff := cmp.Diff(want, l.Env()); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
	if got := batchFirst([]string{"a1"}, "elsewhere"); !cmp.Equal(got, []string{"a1"}) {
		t.Errorf("batchFirst with a batch host not in the list = %v, want Slurm's order", got)
	}
}

// The head's port is free and lies below the ephemeral range, from which
// other processes' outgoing connections take theirs.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	low := ephemeralLow()
	if low <= lowestHeadPort {
		t.Fatalf("this host's ephemeral range starts at %d, leaving no room above %d", low, lowestHeadPort)
	}
	for range 20 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < lowestHeadPort || port >= low {
			t.Fatalf("port %d, want one in [%d, %d)", port, lowestHeadPort, low)
		}
		l, err := net.Listen("tcp", ":"+strconv.Itoa(port))
		if err != nil {
			t.Fatalf("port %d is not free: %v", port, err)
		}
		l.Close()
	}
}
