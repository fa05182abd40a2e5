package remotecache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The messages of Bazel's Remote Execution API (package
// build.bazel.remote.execution.v2, remote_execution.proto of
// github.com/bazelbuild/remote-apis) that kiln writes and reads, encoded by
// hand with protowire as that file recommends for Tree ("construct Tree
// objects manually ... as individual Directory messages already need to be
// marshaled to compute their digests"). Everything is written in the
// canonical form digests of messages need: fields in tag order, no default
// values, no unknown or repeated scalar fields.
const (
	digestHash = 1 // Digest.hash, string
	digestSize = 2 // Digest.size_bytes, int64

	fileNodeName   = 1 // FileNode.name, string
	fileNodeDigest = 2 // FileNode.digest, Digest
	fileNodeExec   = 4 // FileNode.is_executable, bool
	dirNodeName    = 1 // DirectoryNode.name, string
	dirNodeDigest  = 2 // DirectoryNode.digest, Digest
	symlinkName    = 1 // SymlinkNode.name, string
	symlinkTarget  = 2 // SymlinkNode.target, string

	directoryFiles    = 1 // Directory.files, repeated FileNode
	directoryDirs     = 2 // Directory.directories, repeated DirectoryNode
	directorySymlinks = 3 // Directory.symlinks, repeated SymlinkNode

	treeRoot     = 1 // Tree.root, Directory
	treeChildren = 2 // Tree.children, repeated Directory

	outputFilePath   = 1 // OutputFile.path, string
	outputFileDigest = 2 // OutputFile.digest, Digest
	outputFileExec   = 4 // OutputFile.is_executable, bool

	outputDirPath   = 1 // OutputDirectory.path, string
	outputDirTree   = 3 // OutputDirectory.tree_digest, Digest
	outputDirSorted = 4 // OutputDirectory.is_topologically_sorted, bool
	outputDirRoot   = 5 // OutputDirectory.root_directory_digest, Digest

	resultFiles = 2 // ActionResult.output_files, repeated OutputFile
	resultDirs  = 3 // ActionResult.output_directories, repeated OutputDirectory
)

// digest is a REAPI Digest: the SHA-256 (hex) and size of a CAS blob.
type digest struct {
	Hash string
	Size int64
}

func digestOf(b []byte) digest {
	sum := sha256.Sum256(b)
	return digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(b))}
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, 1)
}

// appendMessage appends an embedded message, even an empty one: a present
// empty Directory (an empty folder) is not an absent one.
func appendMessage(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func appendDigest(b []byte, num protowire.Number, d digest) []byte {
	m := appendString(nil, digestHash, d.Hash)
	if d.Size != 0 {
		m = protowire.AppendTag(m, digestSize, protowire.VarintType)
		m = protowire.AppendVarint(m, uint64(d.Size))
	}
	return appendMessage(b, num, m)
}

// outputFile and outputDir are what kiln writes, and reads, of an
// ActionResult's OutputFile and OutputDirectory.
type outputFile struct {
	Path   string
	Digest digest
	Exec   bool
}

type outputDir struct {
	Path   string
	Tree   digest // of the Tree message
	Root   digest // of its root Directory
	Sorted bool
}

// actionResult is an ActionResult as kiln uses it: output files and
// directories. Other fields (exit_code, execution_metadata, which
// bazel-remote adds) are skipped when read and never written.
type actionResult struct {
	Files []outputFile
	Dirs  []outputDir
}

func (a *actionResult) marshal() []byte {
	var b []byte
	for _, f := range a.Files {
		m := appendString(nil, outputFilePath, f.Path)
		m = appendDigest(m, outputFileDigest, f.Digest)
		m = appendBool(m, outputFileExec, f.Exec)
		b = appendMessage(b, resultFiles, m)
	}
	for _, d := range a.Dirs {
		m := appendString(nil, outputDirPath, d.Path)
		m = appendDigest(m, outputDirTree, d.Tree)
		m = appendBool(m, outputDirSorted, d.Sorted)
		m = appendDigest(m, outputDirRoot, d.Root)
		b = appendMessage(b, resultDirs, m)
	}
	return b
}

// field is one field of a message as read: v for a length-delimited one,
// x for a varint.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   []byte
	x   uint64
}

var errWire = errors.New("not a valid protobuf message")

// fields calls fn for each field of the message b, in order.
func fields(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errWire
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.BytesType:
			f.v, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			f.x, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return errWire
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// want checks that a field kiln reads has the wire type of its definition.
func (f field) want(typ protowire.Type, name string) error {
	if f.typ != typ {
		return fmt.Errorf("%s has wire type %d, want %d", name, f.typ, typ)
	}
	return nil
}

func parseDigest(b []byte) (digest, error) {
	var d digest
	err := fields(b, func(f field) error {
		switch f.num {
		case digestHash:
			if err := f.want(protowire.BytesType, "Digest.hash"); err != nil {
				return err
			}
			d.Hash = string(f.v)
		case digestSize:
			if err := f.want(protowire.VarintType, "Digest.size_bytes"); err != nil {
				return err
			}
			d.Size = int64(f.x)
		}
		return nil
	})
	if err == nil && (d.Size < 0 || !isSHA256(d.Hash)) {
		err = fmt.Errorf("digest %q/%d is not a SHA-256 and a size", printable(d.Hash), d.Size)
	}
	return d, err
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parseActionResult reads the output files and directories of an
// ActionResult.
func parseActionResult(b []byte) (*actionResult, error) {
	a := &actionResult{}
	err := fields(b, func(f field) error {
		switch f.num {
		case resultFiles:
			if err := f.want(protowire.BytesType, "ActionResult.output_files"); err != nil {
				return err
			}
			o, err := parseOutputFile(f.v)
			if err != nil {
				return fmt.Errorf("output file: %w", err)
			}
			a.Files = append(a.Files, o)
		case resultDirs:
			if err := f.want(protowire.BytesType, "ActionResult.output_directories"); err != nil {
				return err
			}
			o, err := parseOutputDir(f.v)
			if err != nil {
				return fmt.Errorf("output directory: %w", err)
			}
			a.Dirs = append(a.Dirs, o)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding the ActionResult: %w", err)
	}
	return a, nil
}

func parseOutputFile(b []byte) (outputFile, error) {
	var o outputFile
	hasDigest := false
	err := fields(b, func(f field) error {
		var err error
		switch f.num {
		case outputFilePath:
			err = f.want(protowire.BytesType, "OutputFile.path")
			o.Path = string(f.v)
		case outputFileDigest:
			if err = f.want(protowire.BytesType, "OutputFile.digest"); err == nil {
				o.Digest, err = parseDigest(f.v)
				hasDigest = true
			}
		case outputFileExec:
			err = f.want(protowire.VarintType, "OutputFile.is_executable")
			o.Exec = f.x != 0
		}
		return err
	})
	if err == nil && !hasDigest {
		err = fmt.Errorf("%q has no digest", printable(o.Path))
	}
	return o, err
}

func parseOutputDir(b []byte) (outputDir, error) {
	var o outputDir
	hasTree := false
	err := fields(b, func(f field) error {
		var err error
		switch f.num {
		case outputDirPath:
			err = f.want(protowire.BytesType, "OutputDirectory.path")
			o.Path = string(f.v)
		case outputDirTree:
			if err = f.want(protowire.BytesType, "OutputDirectory.tree_digest"); err == nil {
				o.Tree, err = parseDigest(f.v)
				hasTree = true
			}
		case outputDirSorted:
			err = f.want(protowire.VarintType, "OutputDirectory.is_topologically_sorted")
			o.Sorted = f.x != 0
		case outputDirRoot:
			if err = f.want(protowire.BytesType, "OutputDirectory.root_directory_digest"); err == nil {
				o.Root, err = parseDigest(f.v)
			}
		}
		return err
	})
	if err == nil && !hasTree {
		err = fmt.Errorf("%q has no tree digest", printable(o.Path))
	}
	return o, err
}
