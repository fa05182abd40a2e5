package render

import "testing"

func TestFormatSeconds(t *testing.T) {
	for s, want := range map[float64]string{0: "0s", 0.4: "0s", 59.6: "1m", 90: "1m 30s", 7200: "2h", 7325: "2h 2m 5s"} {
		if got := formatSeconds(s); got != want {
			t.Errorf("formatSeconds(%v) = %q, want %q", s, got, want)
		}
	}
}
