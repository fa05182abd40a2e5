package kind_test

import (
	"context"
	"testing"

	"github.com/hashicorp/hcl/v2/hcldec"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// plain implements no optional interface.
type plain struct{}

func (plain) Name() string                                             { return "plain" }
func (plain) Version() string                                          { return "1" }
func (plain) Spec() hcldec.ObjectSpec                                  { return hcldec.ObjectSpec{} }
func (plain) Exports(*kind.Node) map[string]cty.Value                  { return nil }
func (plain) Build(context.Context, *kind.Build) (*kind.Result, error) { return &kind.Result{}, nil }

// running is a service.
type running struct{ plain }

func (running) Stop(context.Context, *kind.Node, *kind.Record) error { return nil }

// says implements Portable and Shareable with a given answer.
type says struct {
	plain
	yes bool
}

func (s says) Portable() bool  { return s.yes }
func (s says) Shareable() bool { return s.yes }

func TestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		k                            kind.Kind
		service, portable, shareable bool
	}{
		{"none", plain{}, false, false, false},
		{"nil", nil, false, false, false},
		{"service", running{}, true, false, false},
		{"says no", says{yes: false}, false, false, false},
		{"says yes", says{yes: true}, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kind.IsService(tc.k); got != tc.service {
				t.Errorf("IsService = %v, want %v", got, tc.service)
			}
			if got := kind.IsPortable(tc.k); got != tc.portable {
				t.Errorf("IsPortable = %v, want %v", got, tc.portable)
			}
			if got := kind.IsShareable(tc.k); got != tc.shareable {
				t.Errorf("IsShareable = %v, want %v", got, tc.shareable)
			}
		})
	}
}
