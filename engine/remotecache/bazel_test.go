package remotecache

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/remotecache/nginxtest"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// bazelRemote checks the action-cache entry of key on srv as bazel-remote
// does with its default validation (utils/validate.ActionResult on PUT,
// then disk.GetValidatedActionResult on GET): the body parses as an
// ActionResult; every output path is relative and not empty; every digest
// is a SHA-256 with a size that is not negative; and every blob the entry
// names (each output file, each Tree, and each file of each Tree's root
// and children) is in the CAS with exactly that size, the empty blob
// always. It returns the entry and its Trees by output path.
func bazelRemote(t *testing.T, types map[string]protoreflect.MessageType, srv *nginxtest.Server, key string) (protoreflect.Message, map[string]protoreflect.Message) {
	t.Helper()
	b, err := os.ReadFile(srv.RecordPath(key))
	if err != nil {
		t.Fatal(err)
	}
	ac := decodeREAPI(t, types, "ActionResult", b)
	var named []digest
	for _, f := range list(ac, "output_files") {
		p := get(f, "path").String()
		if p == "" || strings.HasPrefix(p, "/") {
			t.Errorf("output file path %q: bazel-remote refuses an empty or absolute path", p)
		}
		named = append(named, validDigest(t, f, "digest"))
	}
	trees := map[string]protoreflect.Message{}
	for _, d := range list(ac, "output_directories") {
		p := get(d, "path").String()
		if strings.HasPrefix(p, "/") {
			t.Errorf("output directory path %q: bazel-remote refuses an absolute path", p)
		}
		td := validDigest(t, d, "tree_digest")
		inCAS(t, srv, td)
		raw, err := os.ReadFile(srv.BlobPath(td.Hash))
		if err != nil {
			t.Fatal(err)
		}
		tree := decodeREAPI(t, types, "Tree", raw)
		trees[p] = tree
		for _, dir := range append([]protoreflect.Message{get(tree, "root").Message()}, list(tree, "children")...) {
			for _, f := range list(dir, "files") {
				named = append(named, validDigest(t, f, "digest"))
			}
		}
	}
	for _, d := range named {
		inCAS(t, srv, d)
	}
	return ac, trees
}

func validDigest(t *testing.T, m protoreflect.Message, field string) digest {
	t.Helper()
	if !get(m, field).Message().IsValid() {
		t.Fatalf("%s has no %s: bazel-remote refuses it", m.Descriptor().Name(), field)
	}
	d := digestField(m, field)
	if d.Size < 0 || !isSHA256(d.Hash) {
		t.Errorf("%s.%s = %+v: bazel-remote refuses it", m.Descriptor().Name(), field, d)
	}
	return d
}

func inCAS(t *testing.T, srv *nginxtest.Server, d digest) {
	t.Helper()
	if d.Size == 0 && d.Hash == emptySHA256 {
		return
	}
	fi, err := os.Stat(srv.BlobPath(d.Hash))
	if err != nil || fi.Size() != d.Size {
		t.Errorf("blob %.12s/%d is not in the CAS with its size (%v): bazel-remote answers the entry 404", d.Hash, d.Size, err)
	}
}

// treeFiles rebuilds the files a Tree describes, in path order, checking
// it as a REAPI client would: its root's digest is rootDigest, the names
// of each Directory are sorted and unique, every Directory a
// DirectoryNode names is among the children under the digest of its
// canonical bytes, each child once, and every child comes after every
// Directory that names it (is_topologically_sorted).
func treeFiles(t *testing.T, tree protoreflect.Message, rootDigest digest) []File {
	t.Helper()
	canon := func(m protoreflect.Message) digest {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m.Interface())
		if err != nil {
			t.Fatal(err)
		}
		return digestOf(b)
	}
	root := get(tree, "root").Message()
	if got := canon(root); got != rootDigest {
		t.Errorf("root Directory digest %+v, the OutputDirectory names %+v", got, rootDigest)
	}
	children := map[digest]int{}
	byIndex := list(tree, "children")
	for i, c := range byIndex {
		d := canon(c)
		if _, ok := children[d]; ok {
			t.Errorf("child %d repeats an earlier Directory", i)
		}
		children[d] = i
	}
	var files []File
	var walk func(dir protoreflect.Message, at int, prefix string)
	walk = func(dir protoreflect.Message, at int, prefix string) {
		for _, kind := range []string{"files", "directories", "symlinks"} {
			var names []string
			for _, n := range list(dir, kind) {
				name := get(n, "name").String()
				names = append(names, name)
				p := path.Join(prefix, name)
				switch kind {
				case "files":
					d := digestField(n, "digest")
					files = append(files, File{Path: p, Type: "f", Exec: get(n, "is_executable").Bool(), Size: d.Size, SHA256: d.Hash})
				case "symlinks":
					files = append(files, File{Path: p, Type: "l", Target: get(n, "target").String()})
				case "directories":
					files = append(files, File{Path: p, Type: "d"})
					i, ok := children[digestField(n, "digest")]
					if !ok {
						t.Fatalf("%s: its Directory is not among the Tree's children", p)
					}
					if i <= at {
						t.Errorf("%s: child %d comes before the Directory that names it (%d)", p, i, at)
					}
					walk(byIndex[i], i, p)
				}
			}
			if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
				t.Errorf("%s of %q are not sorted and unique: %q", kind, prefix, names)
			}
		}
	}
	walk(root, -1, "")
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

// TestEntryIsAnActionResult: kiln's action-cache entry is a REAPI
// ActionResult that bazel-remote's default validation accepts and keeps
// whole: the result folder is an OutputDirectory whose Tree lists every
// folder, symlink, executable bit and file (digest and size), the chunks
// of a larger file are the files of a second one, the signed record is an
// output file, and every blob is in the CAS before the entry is. The
// result then comes back through it, also after bazel-remote added its
// execution metadata.
func TestEntryIsAnActionResult(t *testing.T) {
	srv := startNginx(t)
	types := reapi(t)
	files := maps(sample, map[string]string{"weights/w.bin": bigContent()})
	src := tree(t, files)
	rec := recordOf(t, key, src)
	pusher := newClient(t, srv.URL)
	pusher.Signer = mustKey(t, "ci-1")
	if _, err := pusher.Push(context.Background(), src, rec, nil); err != nil {
		t.Fatal(err)
	}
	ac, trees := bazelRemote(t, types, srv, key)

	outs := list(ac, "output_files")
	if len(outs) != 1 || get(outs[0], "path").String() != recordPath {
		t.Fatalf("output files %v, want the record alone", outs)
	}
	body, err := os.ReadFile(srv.BlobPath(digestField(outs[0], "digest").Hash))
	if err != nil {
		t.Fatal(err)
	}
	var stored Record
	if err := json.Unmarshal(body, &stored); err != nil || stored.Key != key || len(stored.Sigs) != 1 {
		t.Fatalf("the record blob: %v %+v", err, stored)
	}
	dirs := list(ac, "output_directories")
	if len(dirs) != 2 || get(dirs[0], "path").String() != resultPath || get(dirs[1], "path").String() != chunksPath {
		t.Fatalf("output directories %v, want %s and %s", dirs, resultPath, chunksPath)
	}
	var want, chunks []File
	for _, f := range rec.Files {
		f.Chunks = nil
		if f.Size <= hash.ChunkSize {
			want = append(want, f)
		}
	}
	for _, c := range rec.Files[len(rec.Files)-1].blobs() {
		chunks = append(chunks, File{Path: c.sha256, Type: "f", Size: c.size, SHA256: c.sha256})
	}
	slices.SortFunc(chunks, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if diff := cmp.Diff(want, treeFiles(t, trees[resultPath], digestField(dirs[0], "root_directory_digest"))); diff != "" {
		t.Errorf("the result's Tree (-record +tree):\n%s", diff)
	}
	if diff := cmp.Diff(chunks, treeFiles(t, trees[chunksPath], digestField(dirs[1], "root_directory_digest"))); diff != "" {
		t.Errorf("the chunks' Tree (-record +tree):\n%s", diff)
	}
	for _, d := range dirs {
		if !get(d, "is_topologically_sorted").Bool() {
			t.Errorf("%s: is_topologically_sorted not set", get(d, "path"))
		}
	}

	// bazel-remote stores the entry with the worker that sent it.
	b, _ := os.ReadFile(srv.RecordPath(key))
	worker := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "127.0.0.1")
	b = protowire.AppendBytes(protowire.AppendTag(b, 9, protowire.BytesType), worker)
	if err := os.WriteFile(srv.RecordPath(key), b, 0o644); err != nil {
		t.Fatal(err)
	}
	puller := newClient(t, srv.URL)
	puller.Trusted = []PublicKey{pusher.Signer.Public()}
	fetchSame(t, puller, src)
}

// fetchSame looks key up with c, fetches it and checks that it gives the
// tree of src, signed by ci-1 when c trusts keys.
func fetchSame(t *testing.T, c *Client, src string) {
	t.Helper()
	got, err := c.Lookup(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Trusted) > 0 && got.SignedBy != "ci-1" {
		t.Errorf("SignedBy = %q, want ci-1", got.SignedBy)
	}
	dst := t.TempDir()
	if _, err := c.Fetch(context.Background(), got, dst, nil); err != nil {
		t.Fatal(err)
	}
	want, _ := hash.Tree(src, nil)
	if have, err := hash.Tree(dst, nil); err != nil || have != want {
		t.Errorf("fetched tree %s (%v), pushed %s", have.Short(), err, want.Short())
	}
	if sum, err := c.Summary(context.Background(), key); err != nil || sum.Digest != got.Digest {
		t.Errorf("Summary = %+v, %v", sum, err)
	}
}

func maps(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// TestJSONRecordIsRead: a record an earlier kiln wrote to /ac/ as JSON is
// still read, verified and fetched.
func TestJSONRecordIsRead(t *testing.T) {
	srv := startNginx(t)
	src := tree(t, sample)
	rec := recordOf(t, key, src)
	pusher := newClient(t, srv.URL)
	pusher.Signer = mustKey(t, "ci-1")
	if _, err := pusher.Push(context.Background(), src, rec, nil); err != nil {
		t.Fatal(err)
	}
	old, err := json.Marshal(rec) // signed by Push, as kiln then wrote it
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(srv.RecordPath(key), old, 0o644); err != nil {
		t.Fatal(err)
	}
	puller := newClient(t, srv.URL)
	puller.Trusted = []PublicKey{pusher.Signer.Public()}
	fetchSame(t, puller, src)
	fetchSame(t, newClient(t, srv.URL), src)
}

// TestEntryMustAgree: an entry that does not lead to the record it was
// written for, or names other outputs than kiln writes for the record, is
// refused (a miss the caller builds past), never ErrNotFound and never
// linked.
func TestEntryMustAgree(t *testing.T) {
	srv := startNginx(t)
	src := tree(t, sample)
	rec := recordOf(t, key, src)
	if _, err := newClient(t, srv.URL).Push(context.Background(), src, rec, nil); err != nil {
		t.Fatal(err)
	}
	entryBytes, _ := os.ReadFile(srv.RecordPath(key))
	body, _ := json.Marshal(rec)
	recordBlob := srv.BlobPath(digestOf(body).Hash)
	other := *rec
	other.Files = slices.Clone(rec.Files)
	other.Files[0].Exec = !other.Files[0].Exec
	otherEntry, _ := expectedResult(&other, digestOf(body))
	noRecord := (&actionResult{Dirs: otherEntry.Dirs}).marshal()
	for _, tc := range []struct {
		name   string
		entry  []byte
		record []byte // nil keeps the record blob, empty removes it
		want   string
	}{
		{"another tree", otherEntry.marshal(), body, "differ from those of the record"},
		{"record changed", entryBytes, []byte(strings.Replace(string(body), "exec.a", "exec.b", 1)), "(file kiln/record.json) is corrupt on the cache server"},
		{"record damaged", entryBytes, []byte(strings.Replace(string(body), `"key"`, `"k\x01y"`, 1)), "(file kiln/record.json) is corrupt on the cache server"},
		{"record missing", entryBytes, []byte{}, "missing (404)"},
		{"not protobuf", []byte{0xff, 0xff, 0xff}, body, "not a valid protobuf"},
		{"not kiln's", noRecord, body, "names no kiln/record.json"},
		{"too large", append(slices.Clone(entryBytes), make([]byte, maxActionResult)...), body, "larger than the 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(srv.RecordPath(key), tc.entry, 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(recordBlob)
			if len(tc.record) > 0 {
				if err := os.WriteFile(recordBlob, tc.record, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := newClient(t, srv.URL).Lookup(context.Background(), key)
			if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Lookup: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestEntryRecordIsBounded: the record an entry names is read within the
// size the entry gives it, itself within the bound of any record: a named
// size over 4 MiB is refused before the blob is asked for, and a blob that
// goes on past its size is cut one byte after it.
func TestEntryRecordIsBounded(t *testing.T) {
	entry := func(size int64) []byte {
		return (&actionResult{Files: []outputFile{{Path: recordPath, Digest: digest{Hash: strings.Repeat("a", 64), Size: size}}}}).marshal()
	}
	for _, tc := range []struct {
		name string
		size int64
		want string
	}{
		{"named too large", maxRecord + 1, errTooLarge.Error()},
		{"sent too long", 100, "its 101 bytes have SHA-256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/ac/") {
					w.Write(entry(tc.size))
					return
				}
				if tc.size > maxRecord {
					t.Errorf("%s asked for", r.URL.Path)
				}
				endless(true)(w, r)
			})
			c.Limits.Stall = 10 * time.Second // the size limit, not the clock, must stop it on a loaded machine
			_, err := c.Lookup(context.Background(), key)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
		})
	}
}
