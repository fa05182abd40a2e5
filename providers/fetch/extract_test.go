package fetch

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ulikunitz/xz"
	"github.com/zclconf/go-cty/cty"
)

// entry is one archive member: a file (body), a folder (dir) or a symlink.
type entry struct {
	name, body, link string
	hard             string // tar only: hard link target
	dir              bool
}

func tarBytes(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.body))}
		switch {
		case e.dir:
			hdr = &tar.Header{Name: e.name, Mode: 0o755, Typeflag: tar.TypeDir}
		case e.link != "":
			hdr = &tar.Header{Name: e.name, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: e.link}
		case e.hard != "":
			hdr = &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeLink, Linkname: e.hard}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tarGz(t *testing.T, entries []entry) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(tarBytes(t, entries))
	zw.Close()
	return buf.Bytes()
}

func tarXz(t *testing.T, entries []entry) []byte {
	var buf bytes.Buffer
	xw, err := xz.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write(tarBytes(t, entries))
	xw.Close()
	return buf.Bytes()
}

func zipBytes(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		fh := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		body := e.body
		switch {
		case e.dir:
			fh.SetMode(fs.ModeDir | 0o755)
		case e.link != "":
			fh.SetMode(fs.ModeSymlink | 0o777)
			body = e.link
		default:
			fh.SetMode(0o644)
		}
		w, err := zw.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tree lists a folder as "path" (files with their contents), "path/" and
// "path -> target".
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" -> "+target)
		case d.IsDir():
			out = append(out, rel+"/")
		default:
			out = append(out, rel+" = "+readFile(t, p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// serveArchive serves archive bytes under name and builds an extracting
// fetch node for it.
func serveArchive(t *testing.T, name string, archive []byte, extra string) (*Fetch, *kindBuild) {
	t.Helper()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serveContent(w, r, "", archive) })
	cfg := decode(t, fmt.Sprintf("url = %q\nchecksum = %q\nextract = true\n%s", srv.URL+"/"+name, sumOf(archive), extra))
	return &Fetch{}, &kindBuild{b: newBuild(t, t.TempDir(), cfg)}
}

var goodEntries = []entry{
	{name: "pkg/", dir: true},
	{name: "pkg/a.txt", body: "alpha"},
	{name: "pkg/sub/b.txt", body: "beta"},
	{name: "pkg/link", link: "sub/b.txt"},
	{name: "top.txt", body: "top"},
}

var goodTree = []string{
	"pkg/",
	"pkg/a.txt = alpha",
	"pkg/link -> sub/b.txt",
	"pkg/sub/",
	"pkg/sub/b.txt = beta",
	"top.txt = top",
}

func TestExtractFormats(t *testing.T) {
	tests := []struct {
		name    string
		archive func(*testing.T, []entry) []byte
	}{
		{"pack.tar.gz", tarGz},
		{"pack.tgz", tarGz},
		{"pack.tar.xz", tarXz},
		{"pack.tar", tarBytes},
		{"pack.zip", zipBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, kb := serveArchive(t, tt.name, tt.archive(t, goodEntries), "")
			res, err := build(t, f, kb.b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(goodTree, tree(t, kb.b.Dir)); diff != "" {
				t.Errorf("extracted tree (-want +got):\n%s", diff)
			}
			if got := res.Exports["path"]; !got.RawEquals(cty.StringVal(kb.b.Out)) {
				t.Errorf("path export = %#v, want out", got)
			}
		})
	}
}

func TestExtractRefusesEscapes(t *testing.T) {
	tests := []struct {
		name    string
		entries []entry
		want    string
	}{
		{"dot-dot entry", []entry{{name: "ok.txt", body: "x"}, {name: "../evil", body: "pwned"}}, `".."`},
		{"nested dot-dot", []entry{{name: "a/../../evil", body: "pwned"}}, `".."`},
		{"absolute entry", []entry{{name: "/tmp/evil", body: "pwned"}}, "absolute"},
		{"symlink out", []entry{{name: "ln", link: "../../etc"}}, "outside"},
		{"absolute symlink", []entry{{name: "ln", link: "/etc/passwd"}}, "relative path"},
		{"symlink chain out", []entry{{name: "y", link: "."}, {name: "x", link: "y/.."}}, "outside the output folder"},
		{"write through symlink", []entry{{name: "d/", dir: true}, {name: "ln", link: "d"}, {name: "ln/f", body: "x"}}, "through the symlink"},
	}
	formats := []struct {
		ext     string
		archive func(*testing.T, []entry) []byte
	}{{"tar.gz", tarGz}, {"zip", zipBytes}}
	for _, tt := range tests {
		for _, fm := range formats {
			t.Run(tt.name+"/"+fm.ext, func(t *testing.T) {
				f, kb := serveArchive(t, "evil."+fm.ext, fm.archive(t, tt.entries), "")
				_, err := build(t, f, kb.b)
				if err == nil {
					t.Fatalf("Build extracted an archive with %s", tt.name)
				}
				contains(t, "error", err.Error(), tt.want, "evil."+fm.ext)
				mustNotExist(t, filepath.Join(kb.b.Dir, "..", "evil"))
			})
		}
	}
}

func TestExtractLimits(t *testing.T) {
	big := strings.Repeat("0", 64<<10)
	t.Run("bytes", func(t *testing.T) {
		archive := tarGz(t, []entry{{name: "a", body: big}, {name: "b", body: big}})
		f, kb := serveArchive(t, "bomb.tgz", archive, "max_bytes = 100000\n")
		_, err := build(t, f, kb.b)
		if err == nil {
			t.Fatal("Build unpacked past max_bytes")
		}
		contains(t, "error", err.Error(), "more than 100000 bytes", "max_bytes = 100000")
	})
	// Without max_bytes, an archive unpacks to at most 100 times its size
	// (or a floor, here lowered to keep the test small): a bomb of
	// repeated bytes, a few hundred bytes compressed, is refused, and the
	// error names the setting that lets a real archive through.
	t.Run("default relative to the download", func(t *testing.T) {
		archive := tarGz(t, []entry{{name: "zeros", body: strings.Repeat("0", 4<<20)}})
		f, kb := serveArchive(t, "bomb.tgz", archive, "")
		f.ExtractFloor = 1 << 20
		_, err := build(t, f, kb.b)
		if err == nil {
			t.Fatalf("Build unpacked a %d-byte archive to 4 MiB", len(archive))
		}
		contains(t, "error", err.Error(), fmt.Sprintf("more than %d bytes", 1<<20), "100 times", "set max_bytes in")
	})
	t.Run("default fits a real archive", func(t *testing.T) {
		archive := tarGz(t, []entry{{name: "zeros", body: strings.Repeat("0", 4<<20)}})
		f, kb := serveArchive(t, "data.tgz", archive, "")
		if _, err := build(t, f, kb.b); err != nil {
			t.Fatalf("Build refused 4 MiB under the 4 GiB floor: %v", err)
		}
	})
	t.Run("default bytes", func(t *testing.T) {
		archive := zipBytes(t, []entry{{name: "a", body: big}})
		f, kb := serveArchive(t, "bomb.zip", archive, "")
		f.MaxExtractBytes = 1000
		_, err := build(t, f, kb.b)
		if err == nil {
			t.Fatal("Build unpacked past MaxExtractBytes")
		}
		contains(t, "error", err.Error(), "more than 1000 bytes")
	})
	t.Run("files", func(t *testing.T) {
		archive := tarGz(t, []entry{{name: "a", body: "1"}, {name: "b", body: "2"}, {name: "c", body: "3"}})
		f, kb := serveArchive(t, "many.tar.gz", archive, "")
		f.MaxFiles = 2
		_, err := build(t, f, kb.b)
		if err == nil {
			t.Fatal("Build unpacked past MaxFiles")
		}
		contains(t, "error", err.Error(), "more than 2 entries")
	})
}

func TestExtractHardLinks(t *testing.T) {
	t.Run("inside", func(t *testing.T) {
		archive := tarGz(t, []entry{{name: "a.txt", body: "alpha"}, {name: "d/b.txt", hard: "a.txt"}})
		f, kb := serveArchive(t, "links.tgz", archive, "")
		if _, err := build(t, f, kb.b); err != nil {
			t.Fatal(err)
		}
		want := []string{"a.txt = alpha", "d/", "d/b.txt = alpha"}
		if diff := cmp.Diff(want, tree(t, kb.b.Dir)); diff != "" {
			t.Errorf("extracted tree (-want +got):\n%s", diff)
		}
	})
	for name, target := range map[string]string{"outside": "../../etc/passwd", "missing": "nothing.txt"} {
		t.Run(name, func(t *testing.T) {
			archive := tarGz(t, []entry{{name: "a.txt", body: "alpha"}, {name: "b.txt", hard: target}})
			f, kb := serveArchive(t, "links.tgz", archive, "")
			_, err := build(t, f, kb.b)
			if err == nil {
				t.Fatalf("Build made a hard link to %s", target)
			}
			contains(t, "error", err.Error(), "hard link")
		})
	}
}
