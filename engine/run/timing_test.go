package run_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/plan"
	"github.com/kilnbuild/kiln/engine/run"
)

// TestResultsCarryTimesReasonsAndBytes checks what the hooks report for a
// run record: when each node got its turn, ran and ended, in dependency
// order; the decided reasons; and the bytes read to hash a result.
func TestResultsCarryTimesReasonsAndBytes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"pipeline.hcl": `
variable "n" {
  default = 1
}
exec "big" {
  command = "head -c ${var.n * 1048576} /dev/zero > $KILN_OUT/blob"
}
exec "small" {
  command = "wc -c < ${exec.big.out}/blob > $KILN_OUT/size"
}
`,
	})
	res := apply(t, context.Background(), dir, run.Options{Parallelism: 2})
	big, small := result(t, res, "exec.big"), result(t, res, "exec.small")
	for _, r := range []run.NodeResult{big, small} {
		if r.Started.IsZero() || r.Began.Before(r.Started) || r.Ended.Before(r.Began) {
			t.Errorf("%s: started %v, began %v, ended %v: not in order", r.Addr, r.Started, r.Began, r.Ended)
		}
	}
	if small.Started.Before(big.Ended) {
		t.Errorf("exec.small started at %v, before exec.big ended at %v", small.Started, big.Ended)
	}
	if big.BytesHashed != 1<<20 {
		t.Errorf("exec.big hashed %d bytes, want its 1 MiB blob", big.BytesHashed)
	}
	if diff := cmp.Diff([]plan.Reason{{Kind: "new"}}, big.Reasons); diff != "" {
		t.Errorf("exec.big reasons (-want +got):\n%s", diff)
	}

	// Up to date: decided, not run.
	again := apply(t, context.Background(), dir, run.Options{Parallelism: 2})
	if r := result(t, again, "exec.big"); r.Outcome != run.UpToDate || !r.Began.IsZero() || r.Started.IsZero() || r.BytesHashed != 0 {
		t.Errorf("second apply, exec.big: %s, began %v, started %v, hashed %d", r.Outcome, r.Began, r.Started, r.BytesHashed)
	}
}
