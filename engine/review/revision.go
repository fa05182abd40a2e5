package review

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
)

// ErrUnknownRevision is a revision that names no commit of the repository.
var ErrUnknownRevision = errors.New("unknown revision")

// repository is the git work tree a pipeline lives in.
type repository struct {
	top string // absolute, symlinks resolved
}

// findRepository returns the git work tree holding dir.
func findRepository(ctx context.Context, dir string) (*repository, error) {
	out, err := runGit(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository (kiln diff compares git revisions; run it in a clone): %w", dir, err)
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		return nil, fmt.Errorf("finding the top of the git repository: %w", err)
	}
	return &repository{top: top}, nil
}

// resolve returns the full commit id of rev, refusing names that git could
// read as options.
func (r *repository) resolve(ctx context.Context, rev string) (string, error) {
	if rev == "" {
		return "", errors.New("empty revision: name a commit, branch or tag, e.g. HEAD~1 or origin/main")
	}
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("revision %q starts with '-': name a commit, branch or tag, e.g. HEAD~1 or origin/main", rev)
	}
	out, err := runGit(ctx, r.top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: %q is not a commit of %s (check the name with git log, or fetch it first: git fetch origin)", ErrUnknownRevision, rev, r.top)
	}
	return strings.TrimSpace(string(out)), nil
}

// materialise writes the whole tree of commit into dir, which must exist and
// be empty, so the pipeline and the input files it names exist as they were
// at that commit. Nothing in the repository changes.
func (r *repository) materialise(ctx context.Context, commit, dir string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(ctx, r.top, "archive", "--format=tar", commit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running git archive: %w", err)
	}
	extractErr := extract(pipe, dir)
	if extractErr != nil {
		cancel()
		_, _ = io.Copy(io.Discard, pipe)
	}
	waitErr := cmd.Wait()
	msg := strings.TrimSpace(stderr.String())
	switch {
	case waitErr != nil && msg != "":
		// git's own message explains a truncated archive better.
		return fmt.Errorf("git archive %s: %s", human.Short(commit), msg)
	case extractErr != nil:
		return fmt.Errorf("extracting commit %s: %w", human.Short(commit), extractErr)
	case waitErr != nil:
		return fmt.Errorf("git archive %s: %w", human.Short(commit), waitErr)
	}
	return nil
}

// extract writes a tar stream of git archive under dir. Every path stays
// inside dir: os.Root refuses names and symbolic links that lead out of it.
func extract(rd io.Reader, dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(rd)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimSuffix(h.Name, "/"))
		if name == "." || name == "pax_global_header" {
			continue
		}
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("archive entry %q leaves the tree", h.Name)
		}
		if err := extractEntry(root, tr, h, filepath.FromSlash(name)); err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
	}
}

func extractEntry(root *os.Root, tr *tar.Reader, h *tar.Header, name string) error {
	switch h.Typeflag {
	case tar.TypeDir:
		return root.MkdirAll(name, 0o755)
	case tar.TypeSymlink:
		if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		return root.Symlink(h.Linkname, name)
	case tar.TypeReg:
		if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if h.Mode&0o111 != 0 {
			mode = 0o755
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, tr)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return nil // pax headers and anything git does not write
}

// runGit runs git in dir and returns its standard output. The error holds
// git's own message.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := gitCommand(ctx, dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.Bytes(), nil
}

// gitCommand is git in dir without prompts and with messages in English.
func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	return cmd
}
