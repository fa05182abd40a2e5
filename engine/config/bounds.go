package config

import (
	"fmt"
	"math/big"
	"regexp"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// The engine's numeric meta-arguments are whole numbers within bounds, so a
// slip (retries = 2.5, retries = -3, resources = { npu = 1e18 }) is refused
// where it is written instead of being rounded, wrapped, or found out when
// the node runs. The bounds are far above any real use:
const (
	// MaxRetries is the most runs after a failure a node may ask for.
	MaxRetries = 100
	// MaxTotal is the largest step count total may give (10^15).
	MaxTotal = 1_000_000_000_000_000
	// MaxResource is the largest amount of one resource a node may ask for
	// (10^12: a terabyte as mem_mb is 10^6). Against the pools of the
	// machine, a node asking for more than a pool holds is then blocked by
	// the plan, or scaled down for cpu and mem_mb (engine/pool).
	MaxResource = 1_000_000_000_000
)

// wholeNumber reads v as a whole number from lo to hi.
func wholeNumber(v cty.Value, lo, hi int64) (int64, bool) {
	if v.Type() != cty.Number || v.IsNull() || !v.IsKnown() {
		return 0, false
	}
	f := v.AsBigFloat()
	if !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	if acc != big.Exact || i < lo || i > hi {
		return 0, false
	}
	return i, true
}

// numberText writes a number as the user would: 3, -3, 2.5, 1e+18.
func numberText(v cty.Value) string {
	if v.Type() != cty.Number || v.IsNull() || !v.IsKnown() {
		return "?"
	}
	return v.AsBigFloat().Text('g', 10)
}

// durationSyntax is what time.ParseDuration accepts, whatever the size.
var durationSyntax = regexp.MustCompile(`^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$`)

// maxTimeout is the longest timeout, as a time.Duration holds it.
const maxTimeout = time.Duration(1<<63 - 1)

// parseTimeout reads a timeout, or says what is wrong with it: not a
// duration, not more than zero, or longer than a time.Duration holds.
func parseTimeout(s string) (time.Duration, string) {
	d, err := time.ParseDuration(s)
	switch {
	case err == nil && d > 0:
		return d, ""
	case err == nil:
		return 0, fmt.Sprintf("timeout %q is not more than zero; leave timeout out for no limit, or write it like \"90s\", \"2h\" or \"3h30m\".", s)
	case durationSyntax.MatchString(s):
		return 0, fmt.Sprintf("timeout %q is a duration longer than kiln can count: the most is \"%dh\" (about 292 years); leave timeout out for no limit.", s, maxTimeout/time.Hour)
	}
	return 0, fmt.Sprintf("timeout %q is not a duration; write it like \"90s\", \"2h\" or \"3h30m\".", s)
}
