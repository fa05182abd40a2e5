package pyenv

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// decodeHCL decodes a python_env block body with the kind's Spec.
func decodeHCL(t *testing.T, src string) cty.Value {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "test.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags)
	}
	v, diags := hcldec.Decode(f.Body, blockSchema.Spec(), nil)
	if diags.HasErrors() {
		t.Fatalf("decode: %s", diags)
	}
	return v
}

// writeWheel writes a pure-Python wheel NAME-VERSION-py3-none-any.whl into
// dir by hand, the way a build backend would, and returns its path. The
// package NAME has VERSION = "VERSION".
func writeWheel(t *testing.T, dir, name, version string, requires ...string) string {
	t.Helper()
	dist := fmt.Sprintf("%s-%s.dist-info", name, version)
	meta := fmt.Sprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, version)
	for _, r := range requires {
		meta += "Requires-Dist: " + r + "\n"
	}
	files := [][2]string{
		{name + "/__init__.py", fmt.Sprintf("VERSION = %q\n", version)},
		{dist + "/METADATA", meta},
		{dist + "/WHEEL", "Wheel-Version: 1.0\nGenerator: kiln-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	for _, f := range files {
		sum := sha256.Sum256([]byte(f[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f[0], base64.RawURLEncoding.EncodeToString(sum[:]), len(f[1]))
	}
	record.WriteString(dist + "/RECORD,,\n")
	files = append(files, [2]string{dist + "/RECORD", record.String()})

	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := z.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-py3-none-any.whl", name, version))
	writeFile(t, path, buf.String())
	return path
}

// inTreeBackend is a PEP 517/660 build backend that needs nothing but the
// standard library, so pip can build and install the project offline, in
// build isolation, with no setuptools or wheel available.
const inTreeBackend = `import base64, hashlib, os, zipfile

NAME, VERSION = %q, %q
DIST = NAME + "-" + VERSION + ".dist-info"
HERE = os.path.dirname(os.path.abspath(__file__))

def _line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%%s,sha256=%%s,%%d" %% (name, digest, len(data))

def _wheel(directory, files):
    files = dict(files)
    files[DIST + "/METADATA"] = ("Metadata-Version: 2.1\nName: %%s\nVersion: %%s\n" %% (NAME, VERSION)).encode()
    files[DIST + "/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: in-tree\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[DIST + "/RECORD"] = ("\n".join([_line(n, d) for n, d in files.items()] + [DIST + "/RECORD,,"]) + "\n").encode()
    name = "%%s-%%s-py3-none-any.whl" %% (NAME, VERSION)
    with zipfile.ZipFile(os.path.join(directory, name), "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
    return name

def get_requires_for_build_wheel(config_settings=None):
    return []

def get_requires_for_build_editable(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with open(os.path.join(HERE, NAME, "__init__.py"), "rb") as f:
        return _wheel(wheel_directory, {NAME + "/__init__.py": f.read()})

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {NAME + ".pth": (HERE + "\n").encode()})
`

// writeProject writes a source project NAME at dir that pip can install
// editable offline, and returns dir.
func writeProject(t *testing.T, dir, name, version string) string {
	t.Helper()
	writeFile(t, filepath.Join(dir, "pyproject.toml"), fmt.Sprintf(
		"[build-system]\nrequires = []\nbuild-backend = \"in_tree_backend\"\nbackend-path = [\".\"]\n\n[project]\nname = %q\nversion = %q\n", name, version))
	writeFile(t, filepath.Join(dir, "in_tree_backend.py"), fmt.Sprintf(inTreeBackend, name, version))
	writeFile(t, filepath.Join(dir, name, "__init__.py"), fmt.Sprintf("VERSION = %q\n", version))
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testEnv is the minimal build environment the engine would pass.
func testEnv(t *testing.T) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
}
