package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/proc"
)

// patchTool is GNU patch, run when git apply refuses a patch. Its path is
// empty when it is not installed; the refusal then says how to get it.
type patchTool struct {
	path  string
	env   []string
	log   io.Writer
	grace time.Duration
	// missing says why path is empty.
	missing error
}

// gnuPatchArgs apply a patch from standard input the way the ecosystem's
// own tools do (the verl_npu plugin runs "patch -p1 -N"), without prompts,
// backup files (.orig) or reject files (.rej) in the tree, and with file
// names printed as they are, so the report can name them.
var gnuPatchArgs = []string{
	"-p1", "--forward", "--batch", "--no-backup-if-mismatch", "--reject-file=-",
	"--get=0", "--quoting-style=literal",
}

// applied is how one patch went in: by git apply, or by GNU patch after git
// apply refused it, with what each said.
type applied struct {
	tool    string   // "git apply" or "GNU patch"
	refusal string   // git apply's complaint when GNU patch applied it
	notes   []string // hunks that needed an offset or fuzz, "FILE: hunk #N ..."
}

// summary is one line for the log and the record.
func (a applied) summary(label string) string {
	s := label + ": " + a.tool
	if a.refusal != "" {
		s += " (git apply refused it: " + a.refusal + ")"
	}
	if len(a.notes) > 0 {
		s += "; " + strings.Join(a.notes, "; ")
	}
	return s
}

// apply applies one patch to the working tree (not the index), from the
// contents whose hash enters the digest: with git apply, and when git apply
// refuses it, with GNU patch, checked with --dry-run first so that a patch
// that does not apply changes nothing.
func (c *checkout) apply(ctx context.Context, sha string, p patchFile, gnu *patchTool) (applied, error) {
	var said strings.Builder
	g := *c.git
	g.log = io.MultiWriter(c.git.log, &said)
	_, gitErr := g.runInput(ctx, c.dir, nil, p.contents, "apply", "--verbose")
	if gitErr == nil {
		return applied{tool: "git apply", notes: gitHunkNotes(said.String())}, nil
	}
	if ctx.Err() != nil {
		return applied{}, gitErr
	}
	refusal := said.String()
	if strings.TrimSpace(refusal) == "" {
		refusal = gitErr.Error()
	}
	fail := func(gnuSaid string) error {
		return fmt.Errorf("patch %s does not apply to %s at %s: git apply: %s; %s; update the patch for this commit, or pin the commit it was made for", p.label, c.url, sha, gitRefusal(refusal), gnuSaid)
	}
	if gnu.path == "" {
		return applied{}, fail(fmt.Sprintf("GNU patch, which applies what git apply refuses, is not available (%v): install it (apt-get install patch)", gnu.missing))
	}
	out, err := gnu.run(ctx, c.dir, p.contents, "--dry-run")
	if ctx.Err() != nil {
		return applied{}, ctx.Err()
	}
	if err != nil {
		_, _ = io.WriteString(gnu.log, out)
		return applied{}, fail("GNU patch: " + gnuFailure(out, err))
	}
	out, err = gnu.run(ctx, c.dir, p.contents)
	_, _ = io.WriteString(gnu.log, out)
	if err != nil {
		if ctx.Err() != nil {
			return applied{}, ctx.Err()
		}
		return applied{}, fail("GNU patch: " + gnuFailure(out, err))
	}
	return applied{tool: "GNU patch", refusal: gitRefusal(refusal), notes: hunkNotes(out)}, nil
}

// run runs GNU patch in dir with the patch on standard input and returns
// everything it printed, standard output and error interleaved.
func (t *patchTool) run(ctx context.Context, dir string, patch []byte, extra ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(t.path, append(append([]string(nil), gnuPatchArgs...), extra...)...)
	cmd.Dir = dir
	cmd.Env = t.env
	cmd.Stdin = bytes.NewReader(patch)
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := proc.Run(ctx, cmd, t.grace)
	return out.String(), err
}

// patchEnvDrop are variables that change what GNU patch does or prints:
// backups, version control lookups, POSIX mode, quoting.
var patchEnvDrop = []string{
	"POSIXLY_CORRECT", "PATCH_GET", "PATCH_VERSION_CONTROL", "VERSION_CONTROL",
	"SIMPLE_BACKUP_SUFFIX", "QUOTING_STYLE", "LANGUAGE", "LC_ALL", "LC_MESSAGES",
}

// newPatchTool finds GNU patch (name, or "patch") in the PATH of env.
func newPatchTool(name string, env []string, log io.Writer, grace time.Duration) *patchTool {
	if name == "" {
		name = "patch"
	}
	var clean []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !contains(patchEnvDrop, k) {
			clean = append(clean, kv)
		}
	}
	clean = append(clean, "LC_ALL=C") // messages in English, to be read back
	t := &patchTool{env: clean, log: log, grace: grace}
	path, err := lookPath(name, env)
	if err != nil {
		t.missing = err
		return t
	}
	t.path = path
	return t
}

var (
	patchFileLine = regexp.MustCompile(`^(?:checking|patching) file (.+)$`)
	patchHunkLine = regexp.MustCompile(`^Hunk #(\d+) (succeeded at \d+.*|FAILED at \d+.*|ignored.*)\.$`)
	// gitHunkLine is what git apply --verbose says of a hunk it had to move.
	gitHunkLine = regexp.MustCompile(`^Hunk #(\d+) succeeded at \d+ \(offset -?\d+ lines?\)\.$`)
)

// gitHunkNotes are the hunks git apply --verbose applied with an offset,
// named with their file.
func gitHunkNotes(out string) []string {
	var notes []string
	file := ""
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if f, ok := strings.CutPrefix(l, "Checking patch "); ok {
			file = strings.TrimSuffix(f, "...")
			continue
		}
		if m := gitHunkLine.FindStringSubmatch(l); m != nil {
			notes = append(notes, fmt.Sprintf("%s: hunk #%s %s", file, m[1], strings.TrimSuffix(strings.TrimPrefix(l, "Hunk #"+m[1]+" "), ".")))
		}
	}
	return notes
}

// hunkNotes are the hunks GNU patch applied with an offset or fuzz, named
// with their file.
func hunkNotes(out string) []string {
	var notes []string
	for _, l := range gnuLines(out) {
		if l.hunk != "" && strings.HasPrefix(l.status, "succeeded") {
			notes = append(notes, l.note())
		}
	}
	return notes
}

// gnuLine is a line of GNU patch's output with the file it is about and,
// for a hunk's line, the hunk's number and what became of it.
type gnuLine struct{ text, file, hunk, status string }

func (l gnuLine) note() string { return fmt.Sprintf("%s: hunk #%s %s", l.file, l.hunk, l.status) }

// gnuLines reads GNU patch's output; the lines naming a file are not listed.
func gnuLines(out string) []gnuLine {
	var lines []gnuLine
	file := ""
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if m := patchFileLine.FindStringSubmatch(l); m != nil {
			file = m[1]
			continue
		}
		gl := gnuLine{text: l, file: file}
		if m := patchHunkLine.FindStringSubmatch(l); m != nil {
			gl.hunk, gl.status = m[1], m[2]
		}
		lines = append(lines, gl)
	}
	return lines
}

// gnuFailure names the files and hunks GNU patch could not apply, and any
// other complaint it made (a missing file, a reversed patch).
func gnuFailure(out string, err error) string {
	var parts []string
	for _, l := range gnuLines(out) {
		if l.hunk != "" {
			if !strings.HasPrefix(l.status, "succeeded") {
				parts = append(parts, l.note())
			}
			continue
		}
		for _, bad := range []string{"Reversed (or previously applied)", "can't find file", "No file to patch", "Only garbage", "malformed patch", "unrecognized option", "invalid option"} {
			if strings.Contains(l.text, bad) {
				parts = append(parts, l.text)
				break
			}
		}
	}
	if len(parts) == 0 {
		if last := proc.LastLines(out, 3); last != "" {
			return oneLine(last)
		}
		return err.Error()
	}
	return strings.Join(parts, "; ")
}

// gitRefusal keeps the error lines of git apply's complaint.
func gitRefusal(stderr string) string {
	var errs []string
	for _, l := range strings.Split(stderr, "\n") {
		if e, ok := strings.CutPrefix(strings.TrimSpace(l), "error: "); ok && e != "while searching for:" {
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return oneLine(stderr)
	}
	return strings.Join(errs, "; ")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
