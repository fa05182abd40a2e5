package service

import (
	"net/http"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

var (
	_ kind.Kind    = (*Service)(nil)
	_ kind.Prober  = (*Service)(nil)
	_ kind.Service = (*Service)(nil)
)

// LogName is the file in the build's output folder that receives the
// service's stdout and stderr.
const LogName = "service.log"

// Service is the service node kind.
type Service struct {
	// Client makes the readiness and check requests.
	Client *http.Client
	// Grace is how long a starting process may take to exit after SIGTERM
	// when the build is cancelled, before SIGKILL.
	Grace time.Duration
	// ProbeTimeout bounds the single readiness attempt made at plan time.
	ProbeTimeout time.Duration
}

const (
	defaultGrace        = 5 * time.Second
	defaultProbeTimeout = 2 * time.Second
)

// New returns the service kind with its default settings.
func New() kind.Kind {
	return &Service{Client: newClient(), Grace: defaultGrace, ProbeTimeout: defaultProbeTimeout}
}

// newClient makes requests straight to the service: no proxy, no kept
// connections to a process that may be replaced.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
}

// withDefaults fills the settings a zero Service leaves unset.
func (s *Service) withDefaults() *Service {
	c := *s
	if c.Client == nil {
		c.Client = newClient()
	}
	if c.Grace <= 0 {
		c.Grace = defaultGrace
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = defaultProbeTimeout
	}
	return &c
}

// Name is the block type.
func (s *Service) Name() string { return "service" }

// Version enters every key of this kind.
func (s *Service) Version() string { return "1" }

// Spec is the schema of a service block (see Schema).
func (s *Service) Spec() hcldec.ObjectSpec { return blockSchema.Spec() }

// Exports are url (from the configuration; null when unset), log (the
// service's log under the node's stable output path) and pid, known once
// built.
func (s *Service) Exports(n *kind.Node) map[string]cty.Value {
	url := cty.NullVal(cty.String)
	cfg := n.Config
	if ty := cfg.Type(); ty != cty.NilType && ty.IsObjectType() && ty.HasAttribute("url") && !cfg.IsNull() {
		url = cfg.GetAttr("url")
	}
	return map[string]cty.Value{
		"url": url,
		"pid": cty.UnknownVal(cty.Number),
		"log": cty.StringVal(filepath.Join(n.Out, LogName)),
	}
}
