package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/kilnbuild/kiln/engine/nolink"
)

// partial is the resumable download of one URL:
// <state>/fetch/partial/<sha256(url)>, with the server's validator (ETag or
// Last-Modified) beside it in <same>.validator so a resume is only accepted
// for the same remote content, and, once the verified archive's extraction
// was refused, <same>.refused saying why (see collect.go).
type partial struct {
	path      string
	validator string
	release   func()
}

// Suffixes of the files beside a partial download.
const (
	validatorSuffix = ".validator"
	refusedSuffix   = ".refused"
)

// partialLocks serialises the builds in this process that download the same
// URL; two applies never run at once (the state lock), so no file lock is
// needed across processes.
var partialLocks = struct {
	sync.Mutex
	held map[string]chan struct{}
}{held: map[string]chan struct{}{}}

// openPartial takes the partial download of rawURL for this build, waiting
// while another build of this process holds it.
func openPartial(ctx context.Context, state, rawURL string) (*partial, error) {
	dir := filepath.Join(state, "fetch", "partial")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create the folder for partial downloads: %w", err)
	}
	p := filepath.Join(dir, sha256Hex(rawURL))

	partialLocks.Lock()
	ch, ok := partialLocks.held[p]
	if !ok {
		ch = make(chan struct{}, 1)
		partialLocks.held[p] = ch
	}
	partialLocks.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	return &partial{
		path:      p,
		validator: p + validatorSuffix,
		release:   func() { <-ch },
	}, nil
}

// savedValidator is the validator recorded with the partial file, or "".
func (p *partial) savedValidator() string {
	b, err := os.ReadFile(p.validator)
	if err != nil {
		return ""
	}
	return string(b)
}

func (p *partial) saveValidator(v string) error {
	if v == "" {
		if err := os.Remove(p.validator); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return nolink.WriteFile(p.validator, []byte(v), 0o644)
}

// discard deletes the partial download so the next run starts over.
func (p *partial) discard() {
	os.Remove(p.path)
	os.Remove(p.validator)
	os.Remove(p.path + refusedSuffix)
}

// refuse marks the verified download as one whose extraction was refused:
// a later build with other limits extracts it again without downloading it,
// and kiln gc removes it (collect.go). why is the refusal.
func (p *partial) refuse(why error) {
	_ = nolink.WriteFile(p.path+refusedSuffix, []byte(why.Error()+"\n"), 0o644)
}

// publish moves the verified download to dst.
func (p *partial) publish(dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
	}
	err := os.Rename(p.path, dst)
	if errors.Is(err, syscall.EXDEV) {
		err = copyThenRemove(p.path, dst)
	}
	if err != nil {
		return fmt.Errorf("move the download into %s: %w", dst, err)
	}
	os.Remove(p.validator)
	os.Remove(p.path + refusedSuffix)
	return nil
}

// copyThenRemove moves a file across file systems.
func copyThenRemove(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := nolink.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Remove(src)
}
