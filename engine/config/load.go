package config

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/kilnbuild/kiln/engine/kind"
)

// Options says what to load and with which variable values.
type Options struct {
	Kinds    []kind.Kind       // the node kinds the language knows
	Vars     map[string]string // -var name=value, in order of precedence already applied
	VarFiles []string          // -var-file paths
	Env      []string          // environment, for KILN_VAR_name (defaults to os.Environ())
	StateDir string            // defaults to ROOT/.kiln
	// RecordReads records the files each evaluation reads
	// (Evaluated.FilesRead), for kiln diff; otherwise only the pipeline's
	// log of every read is kept (FilesRead).
	RecordReads bool
	// MaxDynamic bounds the instances of one block whose for_each or count
	// reads another node's result (DefaultMaxDynamic when 0).
	MaxDynamic int
	// VerifyDirect evaluates every node that evaluateDirect reads with HCL
	// as well, and makes a difference an error (KILN_PLAN_VERIFY=1).
	VerifyDirect bool
}

// Load reads the pipeline at path: one .hcl file, or every *.hcl file in a folder.
func Load(path string, o Options) (*Pipeline, hcl.Diagnostics) {
	files, root, err := pipelineFiles(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read pipeline", Detail: err.Error()}}
	}
	p := &Pipeline{Root: root, recordReads: o.RecordReads, Kinds: map[string]kind.Kind{}, Variables: map[string]*Variable{}, Locals: map[string]*Local{}}
	p.StateDir = stateDir(root, o.StateDir)
	p.maxDyn = o.MaxDynamic
	p.verifyDirect = o.VerifyDirect
	for _, k := range o.Kinds {
		p.Kinds[k.Name()] = k
	}
	parser := hclparse.NewParser()
	var diags hcl.Diagnostics
	var bodies []*hcl.File
	parsed := map[string]*hcl.File{}
	for _, f := range files {
		var file *hcl.File
		var d hcl.Diagnostics
		if strings.HasSuffix(f, ".json") {
			file, d = parser.ParseJSONFile(f)
		} else if file, d = parseHCLFile(f); file != nil {
			parsed[f] = file
		}
		diags = append(diags, d...)
		if file != nil {
			bodies = append(bodies, file)
		}
		rel, _ := filepath.Rel(root, f)
		p.FileNames = append(p.FileNames, rel)
	}
	p.Files = parser.Files()
	maps.Copy(p.Files, parsed)
	if diags.HasErrors() {
		return p, diags
	}
	p.callsKnown = p.knownCalls(bodies)
	diags = append(diags, p.decodeFiles(bodies)...)
	if diags.HasErrors() {
		return p, diags
	}
	diags = append(diags, p.resolveVariables(o)...)
	if diags.HasErrors() {
		return p, diags
	}
	p.markSensitiveVariables()
	diags = append(diags, p.analyse()...)
	if diags.HasErrors() {
		return p, diags
	}
	p.letGoOfTrees() // reparse.go: nothing after reads a node block's tree
	diags = append(diags, p.decodeScaleOut()...)
	if diags.HasErrors() {
		return p, diags
	}
	diags = append(diags, p.expand()...)
	if diags.HasErrors() {
		return p, diags
	}
	diags = append(diags, p.checkMoved()...)
	if diags.HasErrors() {
		return p, diags
	}
	diags = append(diags, p.decodePools()...)
	return p, diags
}

// StateDirOf is the state folder Load gives the pipeline at path, with
// Options.StateDir given; false when path is not a pipeline.
func StateDirOf(path, given string) (string, bool) {
	_, root, err := pipelineFiles(path)
	return stateDir(root, given), err == nil
}

// stateDir is the state folder of the pipeline whose folder is root: the
// one given, else .kiln in root.
func stateDir(root, given string) string {
	if given != "" {
		return given
	}
	return filepath.Join(root, ".kiln")
}

// pipelineFiles lists the files of the pipeline at path and its root folder.
func pipelineFiles(path string) ([]string, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w (give a pipeline file or a folder holding *.hcl files)", path, err)
	}
	if !fi.IsDir() {
		return []string{abs}, filepath.Dir(abs), nil
	}
	matches, err := filepath.Glob(filepath.Join(abs, "*.hcl"))
	if err != nil {
		return nil, "", err
	}
	var files []string
	for _, m := range matches {
		if !strings.HasSuffix(m, ".lock.hcl") {
			files = append(files, m)
		}
	}
	if len(files) == 0 {
		return nil, "", fmt.Errorf("%s holds no *.hcl files (write a pipeline there, or name a pipeline file: kiln plan FILE.hcl)", path)
	}
	sort.Strings(files)
	return files, abs, nil
}

func (p *Pipeline) rootSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "executor", LabelNames: []string{"type", "name"}},
		{Type: "cache"},
		{Type: "moved"},
		{Type: "kiln"},
		{Type: "pool", LabelNames: []string{"name"}},
	}}
	names := make([]string, 0, len(p.Kinds))
	for n := range p.Kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: n, LabelNames: []string{"name"}})
	}
	return s
}

func (p *Pipeline) decodeFiles(files []*hcl.File) hcl.Diagnostics {
	var diags hcl.Diagnostics
	schema := p.rootSchema()
	seen := map[string]hcl.Range{}
	declare := func(what string, rng hcl.Range) bool {
		if prev, ok := seen[what]; ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate " + what,
				Detail:   fmt.Sprintf("%s is already declared at %s. Addresses must be unique: rename one of them.", what, prev),
				Subject:  rng.Ptr(),
			})
			return false
		}
		seen[what] = rng
		return true
	}
	// Node blocks are decoded in parallel once every block is declared; their
	// diagnostics keep their place among the others (slots).
	type nodeBlock struct {
		k    kind.Kind
		spec *kindSpec
		b    *hcl.Block
		slot int
	}
	var nodes []nodeBlock
	var slots []hcl.Diagnostics
	for _, f := range files {
		content, d := f.Body.Content(schema)
		diags = append(diags, d...)
		nodes, slots = slices.Grow(nodes, len(content.Blocks)), slices.Grow(slots, 2*len(content.Blocks))
		for _, b := range content.Blocks {
			p.noteShared(b)
			switch b.Type {
			case "variable":
				if declare("var."+b.Labels[0], b.DefRange) {
					v, d := decodeVariable(b)
					diags = append(diags, d...)
					if v != nil {
						p.Variables[v.Name] = v
					}
				}
			case "locals":
				attrs, d := b.Body.JustAttributes()
				diags = append(diags, d...)
				for _, a := range attrs {
					if declare("local."+a.Name, a.NameRange) {
						p.Locals[a.Name] = &Local{Name: a.Name, Expr: a.Expr, Range: a.Range}
					}
				}
			case "kiln":
				diags = append(diags, p.decodeSettings(b)...)
			case "moved":
				m, d := p.decodeMoved(b)
				diags = append(diags, d...)
				if m != nil {
					p.Moved = append(p.Moved, m)
				}
			case "pool":
				if declare("pool."+b.Labels[0], b.DefRange) {
					p.poolBlocks = append(p.poolBlocks, b)
				}
			case "output":
				if declare("output."+b.Labels[0], b.DefRange) {
					o, d := decodeOutput(b)
					diags = append(diags, d...)
					if o != nil {
						p.Outputs = append(p.Outputs, o)
					}
				}
			case "executor":
				p.executorBlocks = append(p.executorBlocks, b)
			case "cache":
				p.cacheBlocks = append(p.cacheBlocks, b)
			default:
				k := p.Kinds[b.Type]
				if declare(b.Type+"."+b.Labels[0], b.DefRange) {
					slots = append(slots, diags, nil)
					diags = nil
					nodes = append(nodes, nodeBlock{k: k, spec: p.spec(k), b: b, slot: len(slots) - 1})
				}
			}
		}
	}
	blocks := make([]*Block, len(nodes))
	parallel(len(nodes), func(i int) {
		n := nodes[i]
		blocks[i], slots[n.slot] = decodeBlock(n.k, n.spec, n.b)
	})
	for _, blk := range blocks {
		if blk != nil {
			p.Blocks = append(p.Blocks, blk)
		}
	}
	diags = append(slices.Concat(slots...), diags...)
	sort.Slice(p.Outputs, func(i, j int) bool { return p.Outputs[i].Name < p.Outputs[j].Name })
	return diags
}

func decodeOutput(b *hcl.Block) (*Output, hcl.Diagnostics) {
	content, diags := b.Body.Content(OutputBlock.BodySchema())
	if diags.HasErrors() {
		return nil, diags
	}
	o := &Output{Name: b.Labels[0], Expr: content.Attributes["value"].Expr, DeclRange: b.DefRange}
	if a, ok := content.Attributes["description"]; ok {
		diags = append(diags, decodeStatic(a, &o.Description)...)
	}
	if a, ok := content.Attributes["sensitive"]; ok {
		diags = append(diags, decodeStatic(a, &o.Sensitive)...)
	}
	return o, diags
}

// Files lists the files of the pipeline at path and its root folder,
// without parsing them.
func Files(path string) ([]string, string, error) { return pipelineFiles(path) }
