package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Seen writes each folder of a view as its place, longest first and only
// where a path names that folder; Host goes back, to the path the run was
// given.
func TestViewSeenAndHost(t *testing.T) {
	v := &View{}
	v.Add("/srv/a/pipe", ViewPipeline)
	v.Add("/srv/a/pipe/.kiln/store/ab/abcd-r1", ResultAt("abcd"))
	v.Add("/srv/a/pipe/.kiln/store/ef/ef01-r2", ResultAt("ef01"), "/srv/a/pipe/.kiln/out/exec.up")
	v.Add("/tmp/kiln-run-7", ViewTemp)
	for in, want := range map[string]string{
		"samtools sort -o /srv/a/pipe/.kiln/store/ab/abcd-r1/x.bam /srv/a/pipe/.kiln/out/exec.up/x.sam": "samtools sort -o /kiln/out/abcd/x.bam /kiln/out/ef01/x.sam",
		"cd /srv/a/pipe && cat data.txt":                   "cd /kiln/root && cat data.txt",
		"/srv/a/pipe-data/reads.fq":                        "/srv/a/pipe-data/reads.fq",
		"cat /srv/a/pipe/../outside.txt":                   "cat /srv/a/pipe/../outside.txt",
		"TMPDIR=/tmp/kiln-run-7 HOME=/tmp/kiln-run-7/home": "TMPDIR=/kiln/tmp HOME=/kiln/tmp/home",
		"/srv/a/pipe:/usr/bin":                             "/kiln/root:/usr/bin",
	} {
		if got := v.Seen(in); got != want {
			t.Errorf("Seen(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"/kiln/root/configs/ppo.yaml": "/srv/a/pipe/configs/ppo.yaml",
		"/kiln/out/abcd/x.bai":        "/srv/a/pipe/.kiln/store/ab/abcd-r1/x.bai",
		"/kiln/out/ef01/x.bai":        "/srv/a/pipe/.kiln/out/exec.up/x.bai",
		"/kiln/out/sibling":           "/kiln/out/sibling",
		"/etc/passwd":                 "/etc/passwd",
	} {
		if got := v.Host(in); got != want {
			t.Errorf("Host(%q) = %q, want %q", in, got, want)
		}
	}
}

// A relocated run sees the pipeline folder, its run folder, an upstream's
// result (bound, or linked as a result reached through others) and its
// temporary folder at their fixed places, with the policy's
// rules holding there as at the host's paths; kiln and the host keep their
// own mounts.
func TestViewRelocatesARun(t *testing.T) {
	if err := Relocation(); err != nil {
		t.Fatalf("runs cannot see fixed paths here (%v): the view's tests need root on Linux", err)
	}
	p, root := fixture(t)
	tmp := p.Write[1]
	p.View = &View{}
	p.View.Add(root, ViewPipeline)
	p.View.Add(p.Write[0], ResultAt("me"))
	p.View.Add(filepath.Join(root, ".kiln/store/up/r1"), ResultAt("up"))
	p.View.AddLink(filepath.Join(root, ".kiln/store/up/r1"), ResultAt("deep"))
	p.View.Add(tmp, ViewTemp)
	ownNS, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, script, want string
		ok                 bool
	}{
		{"start in the pipeline folder", "pwd", "/kiln/root\n", true},
		{"write its run folder", "echo mine > " + p.Write[0] + "/out && cat /kiln/out/me/out", "mine\n", true},
		{"read an upstream result", "cat /kiln/out/up/result.txt", "up\n", true},
		{"read a result through a link", "cat /kiln/out/deep/result.txt", "up\n", true},
		{"write through a link", "echo x > /kiln/out/deep/x.bai", "", false},
		{"write its temporary folder", "echo t > " + tmp + "/t && realpath " + tmp + "/t", "/kiln/tmp/t\n", true},
		{"read a declared input", "cat /kiln/root/declared.txt", "in\n", true},
		{"list the view", "ls /kiln /kiln/out", "/kiln:\nout\nroot\ntmp\n\n/kiln/out:\ndeep\nme\nup\n", true},
		{"a namespace of its own", "readlink /proc/self/ns/mnt | grep -vx '" + ownNS + "'", "", true},
		{"read an undeclared file", "cat /kiln/root/undeclared.txt", "", false},
		{"write the pipeline folder", "echo x > /kiln/root/new.txt", "", false},
		{"write an upstream result", "echo x > /kiln/out/up/x.bai", "", false},
		{"write the view", "echo x > /kiln/out/sibling", "", false},
	} {
		code, out := sh(t, p, root, c.script)
		if (code == 0) != c.ok || c.ok && c.want != "" && out != c.want {
			t.Errorf("%s: exit %d, output %q; want ok=%v, %q", c.name, code, out, c.ok, c.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(p.Write[0], "out")); err != nil || string(b) != "mine\n" {
		t.Errorf("the run folder holds %q, %v; want what the run wrote at its place", b, err)
	}
	if now, _ := os.Readlink("/proc/self/ns/mnt"); now != ownNS {
		t.Errorf("kiln's mount namespace changed: %s, was %s", now, ownNS)
	}
	if entries, _ := os.ReadDir(ViewRoot); len(entries) > 0 {
		t.Errorf("the host's %s holds %d entries, want it empty: the run's mounts leaked", ViewRoot, len(entries))
	}
	mounts, _ := os.ReadFile("/proc/self/mounts")
	if strings.Contains(string(mounts), " "+ViewRoot) {
		t.Errorf("kiln's mount table shows %s:\n%s", ViewRoot, mounts)
	}
}
