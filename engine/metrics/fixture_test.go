package metrics

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// collect parses text with spec and returns copies of the samples.
func collect(t *testing.T, spec *Spec, text string) []Sample {
	t.Helper()
	var got []Sample
	p := NewParser(spec, func(s *Sample) {
		got = append(got, Sample{Step: s.Step, Values: append([]Value(nil), s.Values...)})
	})
	if _, err := p.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	p.Close()
	return got
}

func mustSpec(t *testing.T, format string, patterns []string, step string, keys []string) *Spec {
	t.Helper()
	s, err := NewSpec(format, patterns, step, keys)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sampleCmp compares samples, with NaNs equal to each other.
var sampleCmp = []cmp.Option{cmpopts.EquateNaNs(), cmpopts.EquateEmpty()}

func s(step int64, kv ...any) Sample {
	out := Sample{Step: step}
	for i := 0; i < len(kv); i += 2 {
		var v float64
		switch x := kv[i+1].(type) {
		case int:
			v = float64(x)
		case float64:
			v = x
		}
		out.Values = append(out.Values, Value{Key: kv[i].(string), Value: v})
	}
	return out
}

var (
	nan    = math.NaN()
	posInf = math.Inf(1)
	negInf = math.Inf(-1)
)
