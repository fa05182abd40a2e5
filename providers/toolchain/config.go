package toolchain

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/kilnbuild/kiln/engine/kind/attr"
	"github.com/kilnbuild/kiln/engine/proc"

	"github.com/zclconf/go-cty/cty"
)

// DefaultProbeFile is where CANN (up to 8.3) records its version; "<arch>"
// is replaced by the machine's architecture.
const DefaultProbeFile = "/usr/local/Ascend/ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info"

// errUnknown says the configuration still holds values that are only known
// once upstream nodes are built.
var errUnknown = errors.New("configuration not known until upstream nodes are built")

// config is a toolchain block, decoded from the value Spec produced.
type config struct {
	Setup        []string
	Version      string
	ProbeFile    string
	ProbeKey     string
	ProbeCommand []string
	ProbePattern *regexp.Regexp
	EnvExtra     map[string]string
}

// decodeConfig reads v and resolves relative paths against root.
func decodeConfig(v cty.Value, root string) (*config, error) {
	if v.IsNull() || !v.Type().IsObjectType() {
		return nil, errors.New("toolchain configuration is missing")
	}
	if !v.IsWhollyKnown() {
		return nil, errUnknown
	}
	c := &config{ProbeKey: "version"}
	var err error
	if c.Setup, err = attr.Strings(v, "setup"); err != nil {
		return nil, err
	}
	if len(c.Setup) == 0 {
		return nil, errors.New("setup is empty: name at least one setup script to source")
	}
	for i, s := range c.Setup {
		c.Setup[i] = resolve(root, s)
	}
	if c.Version, _, err = attr.String(v, "version"); err != nil {
		return nil, err
	}
	if c.Version == "" {
		return nil, errors.New("version is empty: set the version the probe must find")
	}
	if c.EnvExtra, err = attr.StringMap(v, "env_extra"); err != nil {
		return nil, err
	}
	if err := c.decodeProbe(v, root); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *config) decodeProbe(v cty.Value, root string) error {
	p := attr.Get(v, "probe")
	if p.IsNull() {
		c.ProbeFile = proc.ExpandArch(DefaultProbeFile)
		return nil
	}
	file, _, err := attr.String(p, "file")
	if err != nil {
		return err
	}
	key, _, err := attr.String(p, "key")
	if err != nil {
		return err
	}
	if key != "" {
		c.ProbeKey = key
	}
	cmd, err := attr.Strings(p, "command")
	if err != nil {
		return err
	}
	pattern, _, err := attr.String(p, "pattern")
	if err != nil {
		return err
	}
	switch {
	case file != "" && len(cmd) > 0:
		return errors.New("probe sets both file and command: keep one")
	case len(cmd) > 0:
		if pattern == "" {
			return errors.New("probe.command needs a pattern: a regular expression with one group that captures the version")
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			return fmt.Errorf("probe.pattern %q is not a valid regular expression: %w", pattern, err)
		}
		if re.NumSubexp() != 1 {
			return fmt.Errorf("probe.pattern %q has %d groups, needs exactly one around the version", pattern, re.NumSubexp())
		}
		c.ProbeCommand, c.ProbePattern = cmd, re
	case pattern != "":
		return errors.New("probe.pattern is set without probe.command: add the command whose output it matches")
	case file != "":
		c.ProbeFile = resolve(root, proc.ExpandArch(file))
	default:
		c.ProbeFile = proc.ExpandArch(DefaultProbeFile)
	}
	return nil
}

func resolve(root, p string) string {
	if filepath.IsAbs(p) || root == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}
