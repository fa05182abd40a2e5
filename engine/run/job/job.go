package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/engine/sandbox"
	"github.com/kilnbuild/kiln/engine/state"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// SpecFormat and ResultFormat name the file schemas; a file of another
// format is refused with a message naming both kiln versions.
const (
	SpecFormat   = "kiln-job-spec/1"
	ResultFormat = "kiln-job-result/1"
)

// Spec is one node, prepared to run elsewhere.
type Spec struct {
	Format      string          `json:"format"`
	KilnVersion string          `json:"kiln_version"`
	Addr        string          `json:"addr"`
	Kind        string          `json:"kind"`
	KindVersion string          `json:"kind_version"`
	Key         string          `json:"key"`
	ConfigType  json.RawMessage `json:"config_type"`
	Config      json.RawMessage `json:"config"`
	Root        string          `json:"root"`  // the pipeline folder
	Out         string          `json:"out"`   // the node's stable path
	State       string          `json:"state"` // the state folder
	Dir         string          `json:"dir"`   // the run's output folder, $KILN_OUT
	Resumed     bool            `json:"resumed,omitempty"`
	Env         []string        `json:"env"`
	// PassEnv names variables of the job's own environment that reach the
	// node's processes: what the batch system sets for the job (SLURM_*
	// matched by prefix, the visible-devices variables).
	PassEnv []string `json:"pass_env,omitempty"`
	// Shell is what a string command is appended to, for a sealed kind.
	Shell []string `json:"shell,omitempty"`
	// Sealed: the job makes the run's private temporary folder on its
	// machine (TMPDIR, and HOME unless Env sets it).
	Sealed bool `json:"sealed,omitempty"`
	// Sandbox is the policy the run starts under (its temporary folder
	// added where the job makes it); nil runs it unconfined.
	Sandbox  *sandbox.Policy `json:"sandbox,omitempty"`
	Previous *kind.Record    `json:"previous,omitempty"`
	// Result is the path the job writes its Result to.
	Result string `json:"result"`
}

// SetConfig stores an evaluated configuration (unmarked) in the spec.
func (s *Spec) SetConfig(v cty.Value) error {
	t, err := ctyjson.MarshalType(v.Type())
	if err != nil {
		return err
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return err
	}
	s.ConfigType, s.Config = t, b
	return nil
}

// Value returns the configuration stored by SetConfig.
func (s *Spec) Value() (cty.Value, error) {
	t, err := ctyjson.UnmarshalType(s.ConfigType)
	if err != nil {
		return cty.NilVal, fmt.Errorf("the spec's configuration type: %w", err)
	}
	v, err := ctyjson.Unmarshal(s.Config, t)
	if err != nil {
		return cty.NilVal, fmt.Errorf("the spec's configuration: %w", err)
	}
	return v, nil
}

// Result is what the job reports.
type Result struct {
	Format   string            `json:"format"`
	Key      string            `json:"key"`
	OK       bool              `json:"ok"`
	Error    string            `json:"error,omitempty"`
	ExitCode int               `json:"exit_code"` // of the node's command; -1 when none applies
	Digest   string            `json:"digest,omitempty"`
	Outputs  []state.Output    `json:"outputs,omitempty"`
	Attrs    map[string]string `json:"attrs,omitempty"`
	Host     string            `json:"host"`
	Started  time.Time         `json:"started"`
	Ended    time.Time         `json:"ended"`
}

// WriteSpec writes s to path (mode 0600: it may hold secrets).
func WriteSpec(path string, s *Spec) error {
	s.Format = SpecFormat
	return writeJSON(path, s, 0o600)
}

// ReadSpec reads a spec written by WriteSpec.
func ReadSpec(path string) (*Spec, error) {
	var s Spec
	if err := readJSON(path, &s); err != nil {
		return nil, err
	}
	if s.Format != SpecFormat {
		return nil, fmt.Errorf("%s is a %q spec; this kiln runs %q: run the same kiln version on the submitting host and the compute nodes", path, s.Format, SpecFormat)
	}
	return &s, nil
}

// WriteResult writes r to path atomically.
func WriteResult(path string, r *Result) error {
	r.Format = ResultFormat
	return writeJSON(path, r, 0o644)
}

// ReadResult reads the result at path; ok is false when the job has not
// written one.
func ReadResult(path string) (r *Result, ok bool, err error) {
	var res Result
	if err := readJSON(path, &res); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if res.Format != ResultFormat {
		return nil, false, fmt.Errorf("%s is a %q result, want %q", path, res.Format, ResultFormat)
	}
	return &res, true, nil
}

func writeJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return state.WriteFileAtomic(path, append(b, '\n'), perm)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// AwaitSpec waits until the spec at path exists, for a job queued before
// its node was known (kiln apply writes it once the node's upstreams have
// succeeded), for at most d or until ctx ends.
func AwaitSpec(ctx context.Context, path string, d time.Duration) error {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-deadline.C:
			return fmt.Errorf("no node was handed to this job within %s (%s never appeared): the kiln apply that queued it has gone, or no longer needs it", d, path)
		case <-tick.C:
		}
	}
}
