package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/kilnbuild/kiln/providers/exec"
)

const keySecretVar = "KILN_KEYTEST_TOKEN"

// keyPipeline is a node with every exec attribute set, an input file, an
// upstream reference and an env() read. Each field of keyCase replaces one
// part of it.
type keyCase struct {
	command, dir, env, outputs string
	input                      string // content of in.txt
	upstream                   string // digest of exec.up
	secret                     string // value of the env() variable
}

func baseKeyCase() keyCase {
	return keyCase{
		command:  `"cat ${exec.up.out}/f > made.txt; echo $TOKEN"`,
		dir:      `"sub"`,
		env:      `{ A = "1", TOKEN = env("` + keySecretVar + `") }`,
		outputs:  `["made.txt"]`,
		input:    "input v1\n",
		upstream: "aaaa000000000000000000000000000000000000000000000000000000000000",
		secret:   "hunter2-secret-value",
	}
}

func (c keyCase) write(t *testing.T, dir string) {
	t.Helper()
	hcl := `exec "up" {
  command = "echo up > $KILN_OUT/f"
}

exec "a" {
  command = ` + c.command + `
  dir     = ` + c.dir + `
  env     = ` + c.env + `
  outputs = ` + c.outputs + `
  inputs  = ["in.txt"]
}
`
	// Every case uses the same state folder secret, as one state folder
	// would: sensitive values are hashed with it (see
	// TestSensitiveValuesAreKeyedPerStateFolder).
	writeFiles(t, dir, map[string]string{"pipeline.hcl": hcl, "in.txt": c.input, "sub/.keep": "",
		".kiln/secret": strings.Repeat("5e", 32) + "\n"})
}

// TestSensitiveValuesAreKeyedPerStateFolder: a sensitive value (here read
// with env()) enters key lines as a hash keyed with the state folder's
// secret, so the lines kept in state.json and shown by explain cannot be
// checked against a guessed value offline: two state folders hash the same
// value differently, and neither as the plain hash of the value.
func TestSensitiveValuesAreKeyedPerStateFolder(t *testing.T) {
	c := baseKeyCase()
	sensitive := func(dec *Decision) []string {
		var out []string
		for _, l := range texts(dec.KeyLines) {
			if strings.Contains(l, "(sensitive ") || strings.HasPrefix(l, "env ") {
				out = append(out, l)
			}
		}
		return out
	}
	one, two := t.TempDir(), t.TempDir()
	first := sensitive(keyOf(t, c, one))
	if err := os.Remove(filepath.Join(two, ".kiln", "secret")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Setenv(keySecretVar, c.secret)
	writeFiles(t, two, map[string]string{"pipeline.hcl": "", "in.txt": c.input})
	c.write(t, two)
	if err := os.Remove(filepath.Join(two, ".kiln", "secret")); err != nil {
		t.Fatal(err)
	}
	second := sensitive(decideWith(t, openDecider(t, two), "exec.a", map[string]string{"exec.up": c.upstream}))
	if len(first) != 2 || len(second) != 2 {
		t.Fatalf("sensitive lines: %q and %q, want the env attribute and the env line", first, second)
	}
	plain := hash.Bytes([]byte(c.secret)).Short()
	for i := range first {
		if first[i] == second[i] {
			t.Errorf("two state folders hash the sensitive value alike: %s", first[i])
		}
		for _, l := range []string{first[i], second[i]} {
			if strings.Contains(l, plain) || strings.Contains(l, c.secret) {
				t.Errorf("key line %q holds the value or its plain hash", l)
			}
		}
	}
	fi, err := os.Stat(filepath.Join(two, ".kiln", "secret"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the secret made for the second folder: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	again := sensitive(decideWith(t, openDecider(t, two), "exec.a", map[string]string{"exec.up": c.upstream}))
	if !cmp.Equal(second, again) {
		t.Errorf("the same state folder hashed the value differently the second time: %q, %q", second, again)
	}
}

// keyOf computes exec.a's key for a case in a fresh folder.
func keyOf(t *testing.T, c keyCase, dir string) *Decision {
	t.Helper()
	t.Setenv(keySecretVar, c.secret)
	c.write(t, dir)
	d := openDecider(t, dir)
	return decideWith(t, d, "exec.a", map[string]string{"exec.up": c.upstream})
}

func TestKeyChangesWithEachInfluence(t *testing.T) {
	base := keyOf(t, baseKeyCase(), t.TempDir())
	if base.Key == "" {
		t.Fatalf("no key: %+v", base.Reasons)
	}
	tests := []struct {
		name   string
		change func(*keyCase)
		// the key line that must differ from the base key's
		line string
	}{
		{"command", func(c *keyCase) { c.command = `"cat ${exec.up.out}/f > made.txt; echo changed"` }, "attr command"},
		{"dir", func(c *keyCase) { c.dir = `"."` }, "attr dir"},
		{"env", func(c *keyCase) { c.env = `{ A = "2", TOKEN = env("` + keySecretVar + `") }` }, "attr env"},
		{"outputs", func(c *keyCase) { c.outputs = `["made.txt", "other.txt"]` }, "attr outputs"},
		{"input content", func(c *keyCase) { c.input = "input v2\n" }, "input in.txt"},
		{"upstream digest", func(c *keyCase) { c.upstream = strings.Repeat("b", 64) }, "dep exec.up"},
		{"env() value", func(c *keyCase) { c.secret = "another-secret" }, "env " + keySecretVar},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := baseKeyCase()
			tt.change(&c)
			got := keyOf(t, c, t.TempDir())
			if got.Key == base.Key {
				t.Fatalf("key did not change:\n%s", strings.Join(texts(got.KeyLines), "\n"))
			}
			var changed []string
			for _, r := range DiffKeyLines(base.KeyLines, got.KeyLines) {
				changed = append(changed, string(r.Kind)+" "+r.Subject)
			}
			want := map[string]string{
				"attr command":        "attribute command",
				"attr dir":            "attribute dir",
				"attr env":            "attribute env",
				"attr outputs":        "attribute outputs",
				"input in.txt":        "input in.txt",
				"dep exec.up":         "upstream exec.up",
				"env " + keySecretVar: "env " + keySecretVar,
			}[tt.line]
			// The env() value also changes the env attribute that holds it.
			if tt.name == "env() value" {
				if diff := cmp.Diff([]string{"attribute env", want}, changed); diff != "" {
					t.Errorf("reasons (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff([]string{want}, changed); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeyIgnoresLocationAndTime: the same pipeline in two folders, planned
// at two moments with the input's timestamps changed, has the same keys.
func TestKeyIgnoresLocationAndTime(t *testing.T) {
	c := baseKeyCase()
	c.command = `"cat ${exec.up.out}/f ${path.root}/in.txt > ${self.out}/x; cp in.txt made.txt"`
	c.dir = `"${path.root}/sub"`
	c.env = `{ DATA = "${path.root}/in.txt", UP = exec.up.out, OUT = self.out }`
	first := keyOf(t, c, filepath.Join(t.TempDir(), "one"))
	second := keyOf(t, c, filepath.Join(t.TempDir(), "elsewhere", "two"))
	if diff := cmp.Diff(first.KeyLines, second.KeyLines); diff != "" {
		t.Fatalf("moving the pipeline changed its key lines (-first +second):\n%s", diff)
	}
	if first.Key != second.Key {
		t.Fatalf("moving the pipeline changed its key")
	}
	for _, l := range texts(first.KeyLines) {
		if strings.Contains(l, "/tmp") || strings.Contains(l, os.TempDir()) || strings.Contains(l, ".kiln") {
			t.Errorf("key line holds an absolute path: %s", l)
		}
	}

	// Plan again later: new timestamps on the input and the pipeline file.
	dir := filepath.Join(t.TempDir(), "three")
	again := keyOf(t, c, dir)
	later := time.Now().Add(3 * time.Hour)
	for _, f := range []string{"in.txt", "pipeline.hcl"} {
		if err := os.Chtimes(filepath.Join(dir, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	d := openDecider(t, dir)
	t.Setenv(keySecretVar, c.secret)
	replanned := decideWith(t, d, "exec.a", map[string]string{"exec.up": c.upstream})
	if diff := cmp.Diff(again.KeyLines, replanned.KeyLines); diff != "" {
		t.Fatalf("planning later changed the key lines (-before +after):\n%s", diff)
	}
}

func TestKeySelfOutIsAPlaceholder(t *testing.T) {
	c := baseKeyCase()
	c.command = `"echo hi > ${self.out}/x"`
	dec := keyOf(t, c, t.TempDir())
	var command string
	for _, l := range texts(dec.KeyLines) {
		if strings.HasPrefix(l, "attr command ") {
			command = l
		}
		if strings.Contains(l, "store") {
			t.Errorf("key line names the store: %s", l)
		}
	}
	if want := `attr command "echo hi > ${self.out}/x"`; command != want {
		t.Errorf("command line = %s, want %s", command, want)
	}
}

func TestKeyNeverHoldsSensitiveValue(t *testing.T) {
	tests := []struct{ name, command, env string }{
		{"in env map", `"echo"`, `{ TOKEN = env("` + keySecretVar + `") }`},
		{"in command", `"echo ${env("` + keySecretVar + `")}"`, `{}`},
		{"through a function", `"echo ${upper(env("` + keySecretVar + `"))}"`, `{}`},
		{"in a list command", `["echo", env("` + keySecretVar + `")]`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := baseKeyCase()
			c.command, c.env = tt.command, tt.env
			dec := keyOf(t, c, t.TempDir())
			hasEnvLine := false
			for _, l := range texts(dec.KeyLines) {
				if strings.Contains(strings.ToLower(l), strings.ToLower(c.secret)) {
					t.Errorf("key line holds the secret in clear: %s", l)
				}
				if strings.HasPrefix(l, "env "+keySecretVar+" ") {
					hasEnvLine = true
				}
			}
			if !hasEnvLine {
				t.Errorf("no env %s line in the key:\n%s", keySecretVar, strings.Join(texts(dec.KeyLines), "\n"))
			}
		})
	}
}

// TestKeyEnvReadThroughLocal: env() in a local is still a named influence
// of every node using it.
func TestKeyEnvReadThroughLocal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(keySecretVar, "local-secret-1")
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
locals {
  token = env("` + keySecretVar + `")
}

exec "a" {
  command = "echo a"
  env     = { TOKEN = local.token }
}
`})
	dec := decideWith(t, openDecider(t, dir), "exec.a", nil)
	for _, l := range texts(dec.KeyLines) {
		if strings.HasPrefix(l, "env "+keySecretVar+" ") {
			return
		}
	}
	t.Fatal("env() read in a local leaves no env line in the key (the local is evaluated once at load with a throw-away read log), so reasons say 'attribute env changed' and the no-change certificate does not watch the variable; key lines:\n" + strings.Join(texts(dec.KeyLines), "\n"))
}

// TestKeyLeavesSiblingPathsAlone: only the pipeline folder itself becomes
// $KILN_ROOT, not a sibling folder whose name starts the same way.
func TestKeyLeavesSiblingPathsAlone(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "pipe")
	sibling := filepath.Join(base, "pipe-data", "train.parquet")
	writeFiles(t, dir, map[string]string{"pipeline.hcl": "exec \"a\" {\n  command = \"cat " + sibling + "\"\n}\n"})
	dec := decideWith(t, openDecider(t, dir), "exec.a", nil)
	want := `attr command "cat ` + sibling + `"`
	for _, l := range texts(dec.KeyLines) {
		if strings.HasPrefix(l, "attr command ") && l != want {
			t.Fatalf("a path beside the pipeline folder is rewritten as if inside it: got %s, want %s (two different sibling folders of moved pipelines share a key)", l, want)
		}
	}
}

// TestKeySensitiveInForEach: a value read with env() that becomes an
// instance key stays out of the key lines too.
func TestKeySensitiveInForEach(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(keySecretVar, "foreach-secret")
	writeFiles(t, dir, map[string]string{"pipeline.hcl": `
exec "a" {
  for_each = toset([env("` + keySecretVar + `")])
  command  = "echo ${each.value}"
}
`})
	p, diags := config.Load(dir, config.Options{Kinds: []kind.Kind{exec.New()}, Env: []string{}})
	if diags.HasErrors() {
		t.Logf("for_each over an env() value is refused: %s", diags.Error())
		return
	}
	d := openDecider(t, dir)
	for _, n := range p.Nodes {
		dec := decideWith(t, d, n.Addr.String(), nil)
		for _, l := range texts(dec.KeyLines) {
			if strings.Contains(l, "foreach-secret") {
				t.Fatalf("a secret read with env() and used in for_each appears in clear in the key lines (%s) and in the address %s", l, n.Addr)
			}
		}
	}
}
