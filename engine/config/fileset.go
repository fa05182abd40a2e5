package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// listingSep joins a listing's folder and pattern in the key of a read.
const listingSep = "\x00"

// listingDigest is what a listing saw: the digest of the sorted absolute
// paths it found.
func listingDigest(matches []string) string {
	h := sha256.New()
	for _, m := range matches {
		h.Write([]byte(m))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Relist runs a listing read again (fileset or glob_wildcards) and reports
// whether it still finds the same files.
func Relist(f FileRead) bool {
	var got []string
	var err error
	switch f.What {
	case ReadFileset:
		got, err = filesetMatches(f.Path, f.Pattern)
	case ReadWildcards:
		var ms []wildcardMatch
		ms, err = wildcardMatches(f.Path, f.Pattern)
		for _, m := range ms {
			got = append(got, m.abs)
		}
	default:
		return false
	}
	return err == nil && listingDigest(got) == f.Seen
}

// filesetMatches lists the regular files under base whose path relative to
// base matches pattern, as absolute paths, sorted. The pattern syntax is
// Terraform's fileset: * and ? within a folder, ** across folders, [class]
// and {alternative,another}. A base that does not exist matches nothing.
// Files in a state folder (.kiln) are left out unless the pattern names it.
func filesetMatches(base, pattern string) ([]string, error) {
	pattern = filepath.ToSlash(pattern)
	if !doublestar.ValidatePattern(pattern) {
		return nil, fmt.Errorf("invalid pattern %q (a [ or { without its closing ] or }?)", pattern)
	}
	names, err := doublestar.Glob(os.DirFS(base), strings.TrimPrefix(pattern, "./"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range names {
		if hidesState(name) && !strings.Contains(pattern, ".kiln") {
			continue
		}
		abs := filepath.Join(base, filepath.FromSlash(name))
		fi, err := os.Stat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out = append(out, abs)
	}
	sort.Strings(out)
	return out, nil
}

// hidesState reports whether a listed name lies in a state folder.
func hidesState(rel string) bool {
	return rel == ".kiln" || strings.HasPrefix(rel, ".kiln/") || strings.Contains(rel, "/.kiln/")
}

// filesetFunction is fileset(path, pattern): the set of regular files under
// path matching pattern, relative to path, as in Terraform.
func filesetFunction(root string, record func(what, path, seen string)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}, {Name: "pattern", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			base := resolveUnder(root, args[0].AsString())
			pattern := args[1].AsString()
			matches, err := filesetMatches(base, pattern)
			if err != nil {
				return cty.NilVal, fmt.Errorf("fileset(%q, %q): %w", args[0].AsString(), pattern, err)
			}
			record(ReadFileset, base+listingSep+pattern, listingDigest(matches))
			if len(matches) == 0 {
				return cty.SetValEmpty(cty.String), nil
			}
			vals := make([]cty.Value, len(matches))
			for i, m := range matches {
				rel, _ := filepath.Rel(base, m)
				vals[i] = cty.StringVal(filepath.ToSlash(rel))
			}
			return cty.SetVal(vals), nil
		},
	})
}

// glob_wildcards(pattern) finds the files matching a pattern with named
// wildcards, as Snakemake's function of that name: {sample} matches one or
// more characters other than a slash, {sample,REGEX} only what the regular
// expression matches. It returns a map from the wildcard's value to the
// file's path (relative to the pipeline folder when the pattern is, absolute
// otherwise), ready for for_each. With several wildcards the key is their
// values joined by "/", in the order they appear; a wildcard used twice must
// match the same text both times.
func globWildcardsFunction(root string, record func(what, path, seen string)) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "pattern", Type: cty.String}},
		Type:   function.StaticReturnType(cty.Map(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			pattern := args[0].AsString()
			base := root
			if filepath.IsAbs(pattern) {
				base = "/"
			}
			ms, err := wildcardMatches(base, pattern)
			if err != nil {
				return cty.NilVal, fmt.Errorf("glob_wildcards(%q): %w", pattern, err)
			}
			var found []string
			out := make(map[string]cty.Value, len(ms))
			for _, m := range ms {
				found = append(found, m.abs)
				p := m.abs
				if !filepath.IsAbs(pattern) {
					p = m.rel
				}
				if prev, dup := out[m.key]; dup {
					return cty.NilVal, fmt.Errorf("glob_wildcards(%q): %s and %s give the same key %q", pattern, prev.AsString(), p, m.key)
				}
				out[m.key] = cty.StringVal(p)
			}
			record(ReadWildcards, base+listingSep+pattern, listingDigest(found))
			if len(out) == 0 {
				return cty.MapValEmpty(cty.String), nil
			}
			return cty.MapVal(out), nil
		},
	})
}

type wildcardMatch struct {
	key, rel, abs string
}

// wildcardMatches lists the files under base matching a wildcard pattern,
// sorted by path.
func wildcardMatches(base, pattern string) ([]wildcardMatch, error) {
	glob, re, names, err := compileWildcards(strings.TrimPrefix(filepath.ToSlash(pattern), "/"))
	if err != nil {
		return nil, err
	}
	files, err := filesetMatches(base, glob)
	if err != nil {
		return nil, err
	}
	var out []wildcardMatch
	for _, abs := range files {
		rel, _ := filepath.Rel(base, abs)
		rel = filepath.ToSlash(rel)
		sub := re.FindStringSubmatch(rel)
		if sub == nil {
			continue
		}
		values := map[string]string{}
		var key []string
		ok := true
		for i, name := range names {
			v := sub[i+1]
			if prev, seen := values[name]; seen {
				ok = ok && prev == v
				continue
			}
			values[name] = v
			key = append(key, v)
		}
		if ok {
			out = append(out, wildcardMatch{key: strings.Join(key, "/"), rel: rel, abs: abs})
		}
	}
	return out, nil
}

// compileWildcards turns "data/{sample}.fastq" into the glob that lists the
// candidates ("data/*.fastq"), the expression that checks them and captures
// each wildcard, and the wildcards' names in order.
func compileWildcards(pattern string) (string, *regexp.Regexp, []string, error) {
	var glob, expr strings.Builder
	var names []string
	expr.WriteString("^")
	for rest := pattern; rest != ""; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			glob.WriteString(quoteGlob(rest))
			expr.WriteString(regexp.QuoteMeta(rest))
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", nil, nil, fmt.Errorf("a { without its closing }: write wildcards as {name} or {name,REGEX}")
		}
		end += open
		lit := rest[:open]
		glob.WriteString(quoteGlob(lit))
		expr.WriteString(regexp.QuoteMeta(lit))
		name, constraint, hasConstraint := strings.Cut(rest[open+1:end], ",")
		if !hclIdent(name) {
			return "", nil, nil, fmt.Errorf("wildcard {%s}: a wildcard is named like {sample}", rest[open+1:end])
		}
		if hasConstraint {
			if _, err := regexp.Compile(constraint); err != nil {
				return "", nil, nil, fmt.Errorf("wildcard {%s}: %w", rest[open+1:end], err)
			}
		} else {
			constraint = "[^/]+"
		}
		glob.WriteString("*")
		expr.WriteString("(" + constraint + ")")
		names = append(names, name)
		rest = rest[end+1:]
	}
	if len(names) == 0 {
		return "", nil, nil, fmt.Errorf("the pattern has no wildcard: name the varying part, like data/{sample}.fastq")
	}
	expr.WriteString("$")
	re, err := regexp.Compile(expr.String())
	return glob.String(), re, names, err
}

// quoteGlob escapes the glob syntax in a literal part of a pattern.
func quoteGlob(s string) string {
	if !strings.ContainsAny(s, `*?[]{}\`) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func resolveUnder(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}
