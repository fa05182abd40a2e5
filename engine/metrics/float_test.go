package metrics

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// parseFloat agrees with strconv.ParseFloat, bit for bit, on what it
// accepts, and rejects what strconv rejects.
func TestParseFloatMatchesStrconv(t *testing.T) {
	inputs := []string{"0", "-0", "0.0", "-0.0", "1", "+1", "1.", ".5", "-.5", "1e-06", "1.5e+20", "1E5",
		"0.1", "0.2", "0.30000000000000004", "9007199254740993", "9007199254740992", "123456789012345678901234567890",
		"1e22", "1e23", "1e-22", "1e-23", "4.9e-324", "1.7976931348623157e308", "1e309", "0.000001234",
		"", "-", ".", "e5", "1e", "1e+", "1.2.3", "1e5e5", "--1", "1-", "0x10", "1_000", "nan", "inf", "１"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		inputs = append(inputs, strconv.FormatFloat(f, 'g', -1, 64), strconv.FormatFloat(rng.Float64()*1000, 'f', rng.IntN(10), 64), strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
	}
	for _, in := range inputs {
		want, err := strconv.ParseFloat(in, 64)
		got, ok := parseFloat([]byte(in))
		if ok != (err == nil) || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseFloat(%q) = %v, %v; strconv: %v, %v", in, got, ok, want, err)
		}
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1.5", "-0.25e-3", "9007199254740993", "1e22"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, err := strconv.ParseFloat(in, 64)
		got, ok := parseFloat([]byte(in))
		if ok != (err == nil) || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseFloat(%q) = %v, %v; strconv: %v, %v", in, got, ok, want, err)
		}
	})
}
