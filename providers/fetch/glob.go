package fetch

import (
	"fmt"
	"regexp"
	"strings"
)

// compileGlob turns a files pattern into a regexp with the semantics of
// huggingface_hub's allow_patterns (Python fnmatch): "*" matches any run of
// characters including "/", "?" one character, "[...]" a class ("[!...]"
// negated); a pattern ending in "/" matches everything below that folder.
func compileGlob(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty pattern")
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "*"
	}
	var re strings.Builder
	re.WriteString(`^`)
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			re.WriteString(`.*`)
		case '?':
			re.WriteString(`.`)
		case '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end == 0 { // "[]...]": a leading ] is part of the class
				if next := strings.IndexByte(pattern[i+2:], ']'); next >= 0 {
					end = next + 1
				} else {
					end = -1
				}
			}
			if end < 0 {
				return nil, fmt.Errorf("pattern %q has a \"[\" without its \"]\"", pattern)
			}
			class := pattern[i+1 : i+1+end]
			i += 1 + end
			re.WriteString(`[`)
			if strings.HasPrefix(class, "!") {
				re.WriteString(`^`)
				class = class[1:]
			}
			re.WriteString(strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `^`, `\^`).Replace(class))
			re.WriteString(`]`)
		default:
			re.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	re.WriteString(`$`)
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	return compiled, nil
}

// globSet matches a name against any of its patterns; empty matches all.
type globSet []*regexp.Regexp

func newGlobSet(patterns []string) (globSet, error) {
	var s globSet
	for _, p := range patterns {
		re, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		s = append(s, re)
	}
	return s, nil
}

func (s globSet) match(name string) bool {
	if len(s) == 0 {
		return true
	}
	for _, re := range s {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}
