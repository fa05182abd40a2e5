package addr

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Node is the address of one node instance.
type Node struct {
	Kind string // block type: exec, git_repo, ...
	Name string // block label
	Key  Key    // instance key; NoKey for a block without for_each or count
}

// Key is an instance key: a string (for_each) or an integer (count).
type Key struct {
	Str   string
	Int   int
	IsInt bool
	Set   bool
	// All marks the placeholder of a block whose instances are known only
	// after an upstream node ran: exec.annotate[*].
	All bool
}

// NoKey is the key of a block without for_each or count.
var NoKey = Key{}

// AllKey is the key of a dynamic block's placeholder, [*].
func AllKey() Key { return Key{Set: true, All: true} }

// StringKey returns a for_each instance key.
func StringKey(s string) Key { return Key{Str: s, Set: true} }

// IntKey returns a count instance key.
func IntKey(i int) Key { return Key{Int: i, IsInt: true, Set: true} }

func (k Key) String() string {
	switch {
	case !k.Set:
		return ""
	case k.All:
		return "[*]"
	case k.IsInt:
		return "[" + strconv.Itoa(k.Int) + "]"
	default:
		return "[" + strconv.Quote(k.Str) + "]"
	}
}

// Block returns the address of the block the instance belongs to.
func (n Node) Block() Node { return Node{Kind: n.Kind, Name: n.Name} }

func (n Node) String() string { return n.Kind + "." + n.Name + n.Key.String() }

// Less orders addresses by kind, name and key, integers numerically.
func (n Node) Less(o Node) bool {
	if n.Kind != o.Kind {
		return n.Kind < o.Kind
	}
	if n.Name != o.Name {
		return n.Name < o.Name
	}
	if n.Key.IsInt && o.Key.IsInt {
		return n.Key.Int < o.Key.Int
	}
	return n.Key.String() < o.Key.String()
}

// MaxFileName is the longest FileName, in bytes. File systems hold names of
// 255 bytes, and kiln adds up to 27 to a FileName for the files beside it
// (a log's ".log", a link's temporary ".link-" and 16 hex digits, a Slurm
// job folder's "-KEY-TIME"); the rest is room to spare.
const MaxFileName = 200

// fileNameHash is how many hex digits of the SHA-256 of the whole name end
// a shortened FileName: 128 bits, so two addresses never share one.
const fileNameHash = 32

// FileName is the address as one path element: characters outside
// [A-Za-z0-9._-] in the instance key are written as %XX, brackets kept.
// A name longer than MaxFileName (a for_each key that is a long file path)
// is shortened, the same way every time: its first bytes, "~" and 32 hex
// digits of the SHA-256 of the whole name, MaxFileName bytes in all. No
// other name holds "~" (a key's ~ is written %7E), so a shortened name never
// equals the name of another address.
func (n Node) FileName() string {
	full := n.fullFileName()
	if len(full) <= MaxFileName {
		return full
	}
	sum := sha256.Sum256([]byte(full))
	cut := MaxFileName - 1 - fileNameHash
	if i := strings.LastIndexByte(full[:cut], '%'); i >= cut-2 {
		cut = i // do not split a %XX
	}
	return full[:cut] + "~" + hex.EncodeToString(sum[:])[:fileNameHash]
}

func (n Node) fullFileName() string {
	s := n.Kind + "." + n.Name
	if !n.Key.Set {
		return s
	}
	var b strings.Builder
	b.WriteString(s)
	b.WriteByte('[')
	raw := n.Key.Str
	switch {
	case n.Key.IsInt:
		raw = strconv.Itoa(n.Key.Int)
	case n.Key.All:
		raw = "*"
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// Parse reads an address as users type it: exec.a, exec.a["k"], exec.a[3],
// exec.a[*]. A bare word key (exec.a[k]) is accepted as a string key.
func Parse(s string) (Node, error) {
	rest := s
	var key Key
	if i := strings.IndexByte(s, '['); i >= 0 {
		if !strings.HasSuffix(s, "]") {
			return Node{}, fmt.Errorf("address %q: missing closing ]", s)
		}
		inner := s[i+1 : len(s)-1]
		rest = s[:i]
		switch {
		case inner == "*":
			key = AllKey()
		case strings.HasPrefix(inner, `"`):
			v, err := strconv.Unquote(inner)
			if err != nil {
				return Node{}, fmt.Errorf("address %q: bad key %s", s, inner)
			}
			key = StringKey(v)
		default:
			if n, err := strconv.Atoi(inner); err == nil {
				key = IntKey(n)
			} else if inner != "" {
				key = StringKey(inner)
			} else {
				return Node{}, fmt.Errorf("address %q: empty key", s)
			}
		}
	}
	kind, name, ok := strings.Cut(rest, ".")
	if !ok || kind == "" || name == "" || strings.Contains(name, ".") {
		return Node{}, fmt.Errorf("address %q: want TYPE.NAME, for example exec.train or exec.sweep[\"a\"]", s)
	}
	return Node{Kind: kind, Name: name, Key: key}, nil
}
