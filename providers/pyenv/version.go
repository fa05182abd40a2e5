package pyenv

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a parsed PEP 440 version. Only what ordering needs is kept.
type Version struct {
	Epoch   uint64
	Release []uint64 // at least one part; trailing zeros kept as written
	Pre     *Part    // a, b or rc; nil for none
	Post    *uint64  // nil for none
	Dev     *uint64  // nil for none
	Local   string   // after "+", normalised to lowercase with "." separators
}

// Part is a pre-release: its rank (0 a, 1 b, 2 rc) and number.
type Part struct {
	Rank uint8
	N    uint64
}

// versionPattern is the PEP 440 grammar as the packaging library spells it.
var versionPattern = regexp.MustCompile(`(?i)^v?` +
	`(?:(?P<epoch>[0-9]+)!)?` +
	`(?P<release>[0-9]+(?:\.[0-9]+)*)` +
	`(?P<pre>[-_.]?(?P<prel>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pren>[0-9]+)?)?` +
	`(?P<post>(?:-(?P<postn1>[0-9]+))|(?:[-_.]?(?P<postl>post|rev|r)[-_.]?(?P<postn2>[0-9]+)?))?` +
	`(?P<dev>[-_.]?(?P<devl>dev)[-_.]?(?P<devn>[0-9]+)?)?` +
	`(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`)

// ParseVersion parses a PEP 440 version such as "2.7.1", "1!2.0rc1",
// "0.22.1+cpu" or "1.0.post2.dev3".
func ParseVersion(s string) (Version, error) {
	m := versionPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, fmt.Errorf("%q is not a PEP 440 version (expected e.g. 2.7.1, 1.0rc1, 0.22.1+cpu)", s)
	}
	g := func(name string) string { return m[versionPattern.SubexpIndex(name)] }
	var v Version
	var err error
	if e := g("epoch"); e != "" {
		if v.Epoch, err = strconv.ParseUint(e, 10, 64); err != nil {
			return Version{}, fmt.Errorf("version %q: epoch: %w", s, err)
		}
	}
	for _, p := range strings.Split(g("release"), ".") {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return Version{}, fmt.Errorf("version %q: release part %q: %w", s, p, err)
		}
		v.Release = append(v.Release, n)
	}
	if g("pre") != "" {
		n, err := optionalNumber(g("pren"))
		if err != nil {
			return Version{}, fmt.Errorf("version %q: pre-release number: %w", s, err)
		}
		v.Pre = &Part{Rank: preRank(strings.ToLower(g("prel"))), N: n}
	}
	if g("post") != "" {
		n, err := optionalNumber(g("postn1") + g("postn2"))
		if err != nil {
			return Version{}, fmt.Errorf("version %q: post-release number: %w", s, err)
		}
		v.Post = &n
	}
	if g("dev") != "" {
		n, err := optionalNumber(g("devn"))
		if err != nil {
			return Version{}, fmt.Errorf("version %q: dev-release number: %w", s, err)
		}
		v.Dev = &n
	}
	if l := g("local"); l != "" {
		v.Local = strings.NewReplacer("-", ".", "_", ".").Replace(strings.ToLower(l))
	}
	return v, nil
}

func optionalNumber(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

func preRank(label string) uint8 {
	switch label {
	case "a", "alpha":
		return 0
	case "b", "beta":
		return 1
	default: // c, rc, pre, preview
		return 2
	}
}

// IsPre reports whether v is a pre-release or a development release.
func (v Version) IsPre() bool { return v.Pre != nil || v.Dev != nil }

// Public is v without its local label.
func (v Version) Public() Version {
	v.Local = ""
	return v
}

// String is v in normalised form.
func (v Version) String() string {
	var b strings.Builder
	if v.Epoch != 0 {
		fmt.Fprintf(&b, "%d!", v.Epoch)
	}
	for i, p := range v.Release {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.FormatUint(p, 10))
	}
	if v.Pre != nil {
		fmt.Fprintf(&b, "%s%d", [...]string{"a", "b", "rc"}[v.Pre.Rank], v.Pre.N)
	}
	if v.Post != nil {
		fmt.Fprintf(&b, ".post%d", *v.Post)
	}
	if v.Dev != nil {
		fmt.Fprintf(&b, ".dev%d", *v.Dev)
	}
	if v.Local != "" {
		b.WriteString("+" + v.Local)
	}
	return b.String()
}

// Compare orders versions as PEP 440 does: -1 if a < b, 0 if equal, +1 if
// a > b. Release parts are compared numerically with missing parts as zero;
// a dev release comes before the pre-releases of its release, pre-releases
// before the release, post-releases after it; a local label sorts after the
// same public version.
func Compare(a, b Version) int {
	if c := cmp.Compare(a.Epoch, b.Epoch); c != 0 {
		return c
	}
	if c := compareRelease(a.Release, b.Release); c != 0 {
		return c
	}
	if c := compareRank(preKey(a), preKey(b)); c != 0 {
		return c
	}
	if c := compareRank(optionalKey(a.Post, -1), optionalKey(b.Post, -1)); c != 0 {
		return c
	}
	if c := compareRank(optionalKey(a.Dev, +1), optionalKey(b.Dev, +1)); c != 0 {
		return c
	}
	return compareLocal(a.Local, b.Local)
}

// rank is a sort key with infinities: inf -1 sorts first, +1 last, 0 compares
// the numbers.
type rank struct {
	inf  int
	nums [2]uint64
}

func preKey(v Version) rank {
	switch {
	case v.Pre != nil:
		return rank{nums: [2]uint64{uint64(v.Pre.Rank), v.Pre.N}}
	case v.Post == nil && v.Dev != nil:
		return rank{inf: -1} // 1.0.dev0 sorts before 1.0a0
	default:
		return rank{inf: +1}
	}
}

func optionalKey(n *uint64, absent int) rank {
	if n == nil {
		return rank{inf: absent}
	}
	return rank{nums: [2]uint64{*n}}
}

func compareRank(a, b rank) int {
	if a.inf != b.inf {
		return cmp.Compare(a.inf, b.inf)
	}
	if a.inf != 0 {
		return 0
	}
	if c := cmp.Compare(a.nums[0], b.nums[0]); c != 0 {
		return c
	}
	return cmp.Compare(a.nums[1], b.nums[1])
}

func compareRelease(a, b []uint64) int {
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y uint64
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// compareLocal orders local labels segment by segment: no label first,
// numeric segments after alphanumeric ones and numerically among themselves.
func compareLocal(a, b string) int {
	if a == "" || b == "" {
		return cmp.Compare(len(a), len(b))
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		an, aerr := strconv.ParseUint(as[i], 10, 64)
		bn, berr := strconv.ParseUint(bs[i], 10, 64)
		var c int
		switch {
		case aerr == nil && berr == nil:
			c = cmp.Compare(an, bn)
		case aerr == nil:
			c = +1
		case berr == nil:
			c = -1
		default:
			c = strings.Compare(as[i], bs[i])
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}
