package sandbox

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/kilnbuild/kiln/engine/hash"
)

// SourceDateEpoch is the SOURCE_DATE_EPOCH every run gets unless its node
// sets one: 1980-01-01T00:00:00Z, the earliest time a zip archive (a Python
// wheel, a jar) can hold, the same on every host.
const SourceDateEpoch = "315532800"

// DefaultEnv is the reproducible environment every sealed run starts from,
// under what the node sets itself: a fixed time for tools that stamp their
// output, a fixed time zone and locale, and Python that neither buffers
// its output (so the live status and metrics see each line as it is
// printed) nor writes .pyc files beside its sources.
var DefaultEnv = []string{
	"SOURCE_DATE_EPOCH=" + SourceDateEpoch,
	"TZ=UTC",
	"LANG=C.UTF-8",
	"LC_ALL=C.UTF-8",
	"PYTHONUNBUFFERED=1",
	"PYTHONDONTWRITEBYTECODE=1",
}

// StrictShell is how a string command runs where bash is on PATH: Snakemake's
// strict mode, where an unset variable, a failed command and a failed stage
// of a pipe each fail the node.
var StrictShell = []string{"bash", "-euo", "pipefail", "-c"}

// PlainShell is the strict shell's stand-in where there is no bash: -e and
// -u hold, a failed stage of a pipe before the last is not caught (dash and
// busybox sh have no pipefail).
var PlainShell = []string{"/bin/sh", "-eu", "-c"}

// Contract is what a sealed run's processes start from, besides the node's
// own settings: every part of it is a line of the node's key.
type Contract struct {
	// Shell is the argv a string command is appended to.
	Shell []string
	// Env are the reproducible defaults (DefaultEnv), under the node's env.
	Env []string
	// Note says what the shell does not catch, when it is the plain one.
	Note string
	// Fixed: the run sees its folders at the fixed places of a View.
	Fixed bool
}

// NewContract is the contract of a node whose shell setting (the node's
// shell, else the pipeline's) is setting; nil for the default: the strict
// shell where bash is on kiln's PATH, else the plain one with a note.
func NewContract(setting []string) Contract {
	c := Contract{Shell: setting, Env: DefaultEnv}
	if len(setting) == 0 {
		if haveBash() {
			c.Shell = StrictShell
		} else {
			c.Shell = PlainShell
			c.Note = "no bash on PATH: string commands run with /bin/sh -eu, which does not fail on a failed stage of a pipe; install bash, or set shell"
		}
	}
	return c
}

var haveBash = sync.OnceValue(func() bool {
	_, err := exec.LookPath("bash")
	return err == nil
})

// KeyLines are the contract's lines of a node's key: each is a run line
// whose subject is what it is about (shell, env.NAME, umask). The private
// home and temporary folders differ from run to run, so the key says they
// are private, not where they are.
// Every node of a pipeline has nearly always the same contract, so the
// lines of one with the default environment are made once for each shell
// and shared: they are only read.
func (c Contract) KeyLines() []hash.Line {
	if !slices.Equal(c.Env, DefaultEnv) {
		return c.keyLines(envLines(c.Env))
	}
	k := sharedLinesKey{shell: strings.Join(c.Shell, "\x00"), fixed: c.Fixed}
	if lines, ok := sharedLines.Load(k); ok {
		return lines.([]hash.Line)
	}
	lines := slices.Clip(c.keyLines(defaultEnvLines()))
	sharedLines.Store(k, lines)
	return lines
}

// sharedLines holds the key lines of contracts with the default
// environment, by sharedLinesKey.
var sharedLines sync.Map

type sharedLinesKey struct {
	shell string
	fixed bool
}

func (c Contract) keyLines(env []hash.Line) []hash.Line {
	lines := make([]hash.Line, 0, len(env)+5)
	lines = append(lines, runLine("shell", strings.Join(c.Shell, " ")))
	lines = append(append(lines, env...), privateLines()...)
	if c.Fixed {
		lines = append(lines, KeyLine())
	}
	return lines
}

// runLine is a run line of a key.
func runLine(subject, value string) hash.Line {
	return hash.Line{Label: "run", Subject: subject, Value: value}
}

// envLines are the run lines of the environment variables env.
func envLines(env []string) []hash.Line {
	lines := make([]hash.Line, len(env))
	for i, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		lines[i] = runLine("env."+name, value)
	}
	return lines
}

// defaultEnvLines are the lines of DefaultEnv, written once.
var defaultEnvLines = sync.OnceValue(func() []hash.Line { return envLines(DefaultEnv) })

// privateLines are the lines of what every run has to itself.
var privateLines = sync.OnceValue(func() []hash.Line {
	return []hash.Line{
		runLine("env.HOME", "(private, unless the node sets it)"),
		runLine("env.TMPDIR", "(private)"),
		runLine("umask", fmt.Sprintf("%03o", Umask)),
	}
})
