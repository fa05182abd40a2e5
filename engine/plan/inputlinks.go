package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
)

// InputDigest is the digest an input line of a key gives a file or folder:
// a regular file's content digest, or the tree digest of a folder or a
// symlink with every symlink followed (hash.TreeOptions.FollowLinks), so
// that the key holds both a link's text and what it leads to. Other
// digests of a key (key files, instance files) and of results do not
// follow links (DigestPath).
func InputDigest(p string, c *hash.StatCache) (string, error) {
	return inputDigestRead(p, c, nil)
}

// inputDigestRead is InputDigest that adds the bytes it reads to read.
func inputDigestRead(p string, c *hash.StatCache, read *atomic.Int64) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	var d hash.Digest
	if fi.Mode().IsRegular() {
		d, err = hash.StatedFileWith(p, fi, c, read)
	} else {
		d, err = hash.TreeWith(p, c, hash.TreeOptions{Read: read, FollowLinks: true})
	}
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

// BadInputError says an input is, or holds, what kiln cannot hash as an
// input: a symlink loop, a device, a FIFO or a socket. Unlike a missing
// input (a link that dangles is one), it is a mistake in the pipeline.
type BadInputError struct {
	Input string // the input, relative to the pipeline folder where inside it
	Path  string // what is wrong: Input itself, or a file under it
	What  string // what it is: "a named pipe (fifo)", "a symlink loop", ...
}

func (e *BadInputError) Error() string {
	in := ""
	if e.Path != e.Input {
		in = " (in input " + e.Input + ")"
	}
	fix := "remove it, or leave it out of the inputs"
	if strings.HasPrefix(e.What, "a symlink") {
		fix = "point the link at a file or a folder, or remove it"
	}
	return fmt.Sprintf("inputs: %s%s is %s; an input must be a file or a folder: %s", e.Path, in, e.What, fix)
}

// inputDigest is InputDigest of the input f of the pipeline at root, with
// the errors of what cannot be followed said as inputError says them.
func inputDigest(root, f string, c *hash.StatCache) (string, error) {
	dg, err := InputDigest(f, c)
	if err != nil {
		return "", inputError(root, f, err)
	}
	return dg, nil
}

// inputError turns an error hashing the input f into a *MissingInputError
// for a link that dangles, or a *BadInputError for a loop, a device, a FIFO
// or a socket, each naming the file at fault; other errors are returned as
// they are.
func inputError(root, f string, err error) error {
	var le *hash.LinkError
	var nr *hash.NotRegularError
	switch {
	case errors.As(err, &le) && !le.Loop:
		return &MissingInputError{Pattern: relTo(root, f), Link: relTo(root, le.Path), Target: le.Target}
	case errors.As(err, &le):
		return &BadInputError{Input: relTo(root, f), Path: relTo(root, le.Path), What: "a symlink loop (" + le.Target + " leads back to itself or to a folder that holds it)"}
	case errors.As(err, &nr):
		what := nr.What()
		if nr.Link != "" {
			what = "a symlink to " + nr.Link + ", " + what
		}
		return &BadInputError{Input: relTo(root, f), Path: relTo(root, nr.Path), What: what}
	}
	return err
}

// checkResolved refuses an input that resolved to what cannot be one, by
// its mode as lstat gave it: a device, a FIFO or a socket, or a symlink
// that dangles, loops or leads to one of those. Only links cost a stat;
// what a folder holds is checked when it is hashed.
func checkResolved(root, abs string, mode fs.FileMode) error {
	switch {
	case mode.IsRegular() || mode.IsDir():
		return nil
	case mode&fs.ModeSymlink == 0:
		return inputError(root, abs, &hash.NotRegularError{Path: abs, Mode: mode})
	}
	fi, err := os.Stat(abs)
	if err == nil {
		if m := fi.Mode(); m.IsRegular() || m.IsDir() {
			return nil
		}
	}
	target, lerr := os.Readlink(abs)
	switch {
	case lerr != nil:
		return lerr
	case errors.Is(err, syscall.ELOOP):
		return inputError(root, abs, &hash.LinkError{Path: abs, Target: target, Loop: true})
	case errors.Is(err, fs.ErrNotExist):
		return inputError(root, abs, &hash.LinkError{Path: abs, Target: target})
	case err != nil:
		return err
	}
	return inputError(root, abs, &hash.NotRegularError{Path: abs, Mode: fi.Mode(), Link: target})
}

// inputsError is a diagnostic about n's inputs, at its inputs attribute.
func inputsError(n *config.Node, summary string, err error) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: err.Error() + ".", Subject: n.AttrRange("inputs").Ptr()}
}
