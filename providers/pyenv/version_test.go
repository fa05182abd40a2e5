package pyenv

import (
	"testing"
)

func TestCompareVersions(t *testing.T) {
	// Each row: a, b, and the sign of Compare(a, b).
	tests := []struct {
		a, b string
		want int
	}{
		{"2.7.1", "2.7.1", 0},
		{"2.7", "2.7.0", 0},
		{"2.7.0.0", "2.7", 0},
		{"v1.0", "1.0", 0},
		{"0.20.1", "0.22.1", -1},
		{"0.10.0", "0.9.0", +1},
		{"2.46.0", "2.47.1", -1},
		{"1.26.4", "2.0.0", -1},
		{"2.0.0rc1", "2.0.0", -1},
		{"2.0.0a1", "2.0.0b1", -1},
		{"2.0.0b2", "2.0.0rc1", -1},
		{"2.0.0rc1", "2.0.0rc2", -1},
		{"2.0.0-rc.1", "2.0.0rc1", 0},
		{"1.0alpha1", "1.0a1", 0},
		{"1.0c1", "1.0rc1", 0},
		{"1.0.dev1", "1.0a1", -1},
		{"1.0.dev1", "1.0.dev2", -1},
		{"1.0a1.dev1", "1.0a1", -1},
		{"1.0", "1.0.post1", -1},
		{"1.0-1", "1.0.post1", 0},
		{"1.0.post1.dev1", "1.0.post1", -1},
		{"1.0.post1", "1.1.dev0", -1},
		{"1!0.1", "2.0", +1},
		{"2.7.1+cpu", "2.7.1", +1},
		{"2.7.1+cpu", "2.7.1+cu121", -1},
		{"1.0+abc.5", "1.0+abc.10", -1},
		{"1.0+5", "1.0+abc", +1},
		{"1.0+abc", "1.0+abc.1", -1},
		{"4.11.0.86", "4.11.0.9", +1},
	}
	for _, tt := range tests {
		a, err := ParseVersion(tt.a)
		if err != nil {
			t.Fatalf("ParseVersion(%q): %v", tt.a, err)
		}
		b, err := ParseVersion(tt.b)
		if err != nil {
			t.Fatalf("ParseVersion(%q): %v", tt.b, err)
		}
		if got := Compare(a, b); got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Compare(b, a); got != -tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestParseVersionNormalises(t *testing.T) {
	tests := map[string]string{
		"2.7.1":           "2.7.1",
		"V1.0-ALPHA.2":    "1.0a2",
		"1.0.preview3":    "1.0rc3",
		"1.0-r4":          "1.0.post4",
		"1.0.post":        "1.0.post0",
		"1.0dev":          "1.0.dev0",
		"1!2.0b1.post2":   "1!2.0b1.post2",
		"0.22.1+CPU_Test": "0.22.1+cpu.test",
	}
	for in, want := range tests {
		v, err := ParseVersion(in)
		if err != nil {
			t.Errorf("ParseVersion(%q): %v", in, err)
			continue
		}
		if got := v.String(); got != want {
			t.Errorf("ParseVersion(%q).String() = %q, want %q", in, got, want)
		}
	}
}

func TestParseVersionRejects(t *testing.T) {
	for _, in := range []string{"", "latest", "1.0-custom", "1..0", "2.7.*", "1.0+", "99999999999999999999999"} {
		if v, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) = %v, want an error", in, v)
		}
	}
}
