package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine"
	"github.com/zclconf/go-cty/cty"
)

func init() {
	register(&command{name: "completion", summary: "print a shell completion script (bash, zsh or fish)",
		usage: "kiln completion bash|zsh|fish\n\nbash:  source <(kiln completion bash)        (or write it to /etc/bash_completion.d/kiln)\nzsh:   kiln completion zsh > \"${fpath[1]}/_kiln\"\nfish:  kiln completion fish > ~/.config/fish/completions/kiln.fish\n\nThe scripts ask kiln itself for candidates: commands, flags, the pipeline's node\naddresses (-target, -replace, explain, logs...), variable names (-var), outputs.",
		run:   runCompletion})
	register(&command{name: "__complete", hidden: true, summary: "candidates for the shell completion scripts", usage: "kiln __complete WORD... CURRENT", run: runComplete})
}

func runCompletion(c *cli, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(c.stderr, "kiln completion: name a shell: bash, zsh or fish")
		return 1
	}
	script, ok := completionScripts[args[0]]
	if !ok {
		fmt.Fprintf(c.stderr, "kiln completion: no script for %q%s (bash, zsh or fish)\n", args[0], didYouMean(args[0], []string{"bash", "zsh", "fish"}))
		return 1
	}
	fmt.Fprint(c.stdout, script)
	return 0
}

// filesDirective, as the first line of __complete's answer, tells the
// scripts to complete file names instead.
const filesDirective = ":files"

// runComplete prints the candidates for the last argument, given the words
// before it, one per line. It never fails: a pipeline that does not load
// simply offers no addresses.
func runComplete(c *cli, args []string) int {
	if len(args) == 0 {
		args = []string{""}
	}
	words, cur := args[:len(args)-1], args[len(args)-1]
	for _, s := range complete(c, words, cur) {
		if s == filesDirective || strings.HasPrefix(s, cur) {
			fmt.Fprintln(c.stdout, s)
		}
	}
	return 0
}

func complete(c *cli, words []string, cur string) []string {
	// Global options first: -chdir=DIR moves where the pipeline is found.
	var rest []string
	for i := 0; i < len(words); i++ {
		if name, val, ok := strings.Cut(strings.TrimLeft(words[i], "-"), "="); strings.HasPrefix(words[i], "-") && name == "chdir" {
			if !ok && i+1 < len(words) {
				i++
				val = words[i]
			}
			if _, err := c.globalOptions([]string{"-chdir=" + val}); err != nil {
				return nil
			}
			continue
		}
		rest = append(rest, words[i])
	}
	words = rest
	if len(words) > 0 && words[len(words)-1] == "-chdir" {
		return []string{filesDirective}
	}
	if len(words) == 0 {
		if strings.HasPrefix(cur, "-") {
			return []string{"-chdir=", "-help", "-version"}
		}
		return visibleCommands()
	}
	name, words := words[0], words[1:]
	var fs *flag.FlagSet
	if mk := flagSets[name]; mk != nil {
		fs = mk()
	}
	if len(words) > 0 && fs != nil {
		if f := fs.Lookup(strings.TrimLeft(words[len(words)-1], "-")); f != nil && strings.HasPrefix(words[len(words)-1], "-") && !isBoolFlag(f) {
			return flagValues(c, name, f.Name)
		}
	}
	if strings.HasPrefix(cur, "-") {
		out := []string{"-chdir="}
		if fs != nil {
			fs.VisitAll(func(f *flag.Flag) { out = append(out, "-"+f.Name) })
		}
		return out
	}
	var pos []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") {
			if f := lookupFlag(fs, w); f != nil && !isBoolFlag(f) && !strings.Contains(w, "=") {
				i++
			}
			continue
		}
		pos = append(pos, w)
	}
	return positional(c, name, pos)
}

func lookupFlag(fs *flag.FlagSet, w string) *flag.Flag {
	if fs == nil {
		return nil
	}
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	return fs.Lookup(name)
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func flagValues(c *cli, cmd, flagName string) []string {
	switch flagName {
	case "target", "replace":
		return nodeAddresses(c)
	case "var":
		return variableNames(c)
	case "resource":
		return resourceNames(c)
	case "format":
		if cmd == "graph" {
			return []string{"dot", "mermaid"}
		}
		return []string{"text", "json", "markdown"}
	}
	return []string{filesDirective}
}

func positional(c *cli, cmd string, pos []string) []string {
	switch cmd {
	case "help":
		if len(pos) == 0 {
			return helpTopics(languageReference())
		}
	case "completion":
		if len(pos) == 0 {
			return []string{"bash", "zsh", "fish"}
		}
	case "state":
		if len(pos) == 0 {
			return []string{"list", "show"}
		}
		if pos[0] == "show" && len(pos) == 1 {
			return nodeAddresses(c)
		}
	case "explain", "logs":
		if len(pos) == 0 {
			return nodeAddresses(c)
		}
	case "show", "destroy", "lock":
		return append(nodeAddresses(c), filesDirective)
	case "output":
		if len(pos) == 0 {
			return outputNames(c)
		}
	case "version", "fmt", "gc", "validate", "graph", "plan", "apply", "diff":
	}
	return []string{filesDirective}
}

// loadQuietly loads the pipeline here (or above) for its names, printing
// nothing.
func loadQuietly(c *cli) *engine.Pipeline {
	path, err := c.locate(".")
	if err != nil {
		return nil
	}
	p, _ := engine.LoadPipeline(path, kinds())
	return p
}

func nodeAddresses(c *cli) []string {
	p := loadQuietly(c)
	if p == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range p.Nodes {
		for _, a := range []string{n.Addr.Block().String(), n.Addr.String()} {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// variableNames offers name= for every variable and name.attr= for each
// attribute of an object variable.
func variableNames(c *cli) []string {
	p := loadQuietly(c)
	if p == nil {
		return nil
	}
	var out []string
	for name, v := range p.Variables {
		out = append(out, name+"=")
		ty := v.Type
		if ty == cty.DynamicPseudoType && v.Default != cty.NilVal {
			ty = v.Default.Type()
		}
		if ty.IsObjectType() {
			for attr := range ty.AttributeTypes() {
				out = append(out, name+"."+attr+"=")
			}
		}
	}
	sort.Strings(out)
	return out
}

func resourceNames(c *cli) []string {
	p := loadQuietly(c)
	if p == nil {
		return nil
	}
	set := map[string]bool{"cpu=": true}
	for _, n := range p.Nodes {
		for r := range n.Meta.Resources {
			set[r+"="] = true
		}
	}
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func outputNames(c *cli) []string {
	p := loadQuietly(c)
	if p == nil {
		return nil
	}
	var out []string
	for _, o := range p.Outputs {
		out = append(out, o.Name)
	}
	return out
}

func visibleCommands() []string {
	var out []string
	for _, n := range commandNames() {
		if !commands[n].hidden {
			out = append(out, n)
		}
	}
	return out
}

var completionScripts = map[string]string{
	"bash": `# bash completion for kiln: source <(kiln completion bash)
_kiln() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local out
  out=$(kiln __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return
  if [[ "$out" == :files* ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
    return
  fi
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$out" -- "$cur"))
  if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
    compopt -o nospace 2>/dev/null
  fi
}
complete -o default -F _kiln kiln
`,
	"zsh": `#compdef kiln
# zsh completion for kiln: kiln completion zsh > "${fpath[1]}/_kiln"
_kiln() {
  local -a out eq plain
  out=("${(@f)$(kiln __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "${out[1]}" == ":files" ]]; then
    _files
    return
  fi
  eq=(${(M)out:#*=})
  plain=(${out:#*=})
  (( ${#plain} )) && compadd -Q -- "${plain[@]}"
  (( ${#eq} )) && compadd -Q -S '' -- "${eq[@]}"
}
if [[ "$funcstack[1]" == "_kiln" ]]; then
  _kiln "$@"
else
  compdef _kiln kiln
fi
`,
	"fish": `# fish completion for kiln: kiln completion fish > ~/.config/fish/completions/kiln.fish
function __kiln_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l out (kiln __complete $tokens[2..-1] "$cur" 2>/dev/null)
    if test "$out[1]" = ":files"
        __fish_complete_path "$cur"
        return
    end
    printf '%s\n' $out
end
complete -c kiln -f -a '(__kiln_complete)'
`,
}
