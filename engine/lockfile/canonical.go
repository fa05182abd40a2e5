package lockfile

import (
	"bytes"
	"strconv"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/kilnbuild/kiln/engine/addr"
)

// The lock of a large pipeline is megabytes of HCL that kiln itself wrote.
// Parsing it with the HCL parser turns every byte into tokens and a syntax
// tree (about 80 MB at its peak for the 2 MB lock of 10,000 nodes, and half
// a second), which is why the lock is cached (cache.go); after a clean the
// cache is gone. parseCanonical reads a lock in exactly the form Bytes
// writes, line by line: it accepts a file only when the content it read
// renders back to the same bytes, and every value passes the checks Parse
// makes. Anything else — a hand edit, a comment, an escape, an error to
// report — is read by the HCL parser as before, so what a user sees never
// depends on which path read the file.

// parseCanonical reads src when it is a lock in the canonical form whose
// content Parse accepts; ok is false otherwise.
func parseCanonical(src []byte) (f *File, ok bool) {
	prefix := header + "version = " + strconv.Itoa(Version) + "\n"
	rest, found := bytes.CutPrefix(src, []byte(prefix))
	if !found {
		return nil, false
	}
	f = New()
	for len(rest) > 0 {
		var line []byte
		if line, rest, ok = nextLine(rest); !ok || len(line) != 0 {
			return nil, false // a blank line before each block
		}
		if line, rest, ok = nextLine(rest); !ok {
			return nil, false
		}
		typ, label, ok := blockHeader(line)
		if !ok {
			return nil, false
		}
		attrs := map[string]string{}
		for {
			if line, rest, ok = nextLine(rest); !ok {
				return nil, false
			}
			if string(line) == "}" {
				break
			}
			name, value, ok := attrLine(line)
			if _, dup := attrs[name]; !ok || dup {
				return nil, false
			}
			attrs[name] = value
		}
		if !addBlock(f, typ, label, attrs) {
			return nil, false
		}
	}
	if !bytes.Equal(f.Bytes(), src) {
		return nil, false
	}
	return f, true
}

// addBlock adds a block's content to f when Parse would accept it.
func addBlock(f *File, typ, label string, attrs map[string]string) bool {
	if a, err := addr.Parse(label); err != nil || a.String() != label {
		return false
	}
	switch typ {
	case "pin":
		if _, dup := f.Pins[label]; dup || len(attrs) == 0 {
			return false
		}
		for name, v := range attrs {
			if p, ok := pinFormats[name]; ok && !p.re.MatchString(v) {
				return false
			}
		}
		f.Pins[label] = attrs
	case "node":
		n := Node{Key: attrs["key"], Digest: attrs["digest"], Kiln: attrs["kiln"]}
		_, hasDigest := attrs["digest"]
		if hasDigest && !hex64.MatchString(n.Digest) || !hasDigest && len(attrs) != 2 {
			return false // a node whose result varies has no digest
		}
		if _, dup := f.Nodes[label]; dup || hasDigest && len(attrs) != 3 || !hex64.MatchString(n.Key) {
			return false
		}
		if _, ok := attrs["kiln"]; !ok {
			return false
		}
		f.Nodes[label] = n
	default:
		return false
	}
	return true
}

// nextLine splits off the first line of s, without its newline; false when
// s has no newline.
func nextLine(s []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(s, '\n')
	if i < 0 {
		return nil, nil, false
	}
	return s[:i], s[i+1:], true
}

// blockHeader reads `TYPE "LABEL" {`.
func blockHeader(line []byte) (typ, label string, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return "", "", false
	}
	body, found := bytes.CutSuffix(line[sp+1:], []byte(" {"))
	if !found {
		return "", "", false
	}
	label, ok = plainString(body)
	return string(line[:sp]), label, ok
}

// attrLine reads `  NAME = "VALUE"`, any number of spaces before the =.
func attrLine(line []byte) (name, value string, ok bool) {
	rest, found := bytes.CutPrefix(line, []byte("  "))
	if !found {
		return "", "", false
	}
	eq := bytes.Index(rest, []byte(" = "))
	if eq <= 0 {
		return "", "", false
	}
	name = string(bytes.TrimRight(rest[:eq], " "))
	value, ok = plainString(rest[eq+3:])
	return name, value, ok && hclsyntax.ValidIdentifier(name)
}

// plainString reads a quoted string that needs no escape (safeString).
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	s := string(b[1 : len(b)-1])
	return s, safeString(s)
}

// safeString reports whether s is printable ASCII that an HCL string
// literal holds as it is: no quote, backslash, or $ and % that could start
// a template sequence.
func safeString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '$' || c == '%' {
			return false
		}
	}
	return true
}
