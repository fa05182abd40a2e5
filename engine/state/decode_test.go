package state

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kilnbuild/kiln/engine/hash"
)

// TestDecodeRecordAgreesWithEncodingJSON is a property: every record, as
// kiln writes it and as a hand might have edited it (other spellings,
// nulls, spaces, escapes), decodes by decodeRecord exactly as by
// encoding/json.
func TestDecodeRecordAgreesWithEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	str := func() string {
		return []string{"", "a", "exec.a[\"k\"]", "tab\there", "ünï", "quote \" back \\ slash", "<&>", "\u2028", "line\nbreak",
			"cr\r bs\b ff\f", "a/b", "bad \xff byte", "😀 \x00"}[r.IntN(13)]
	}
	for i := range 2000 {
		rec := &Record{Addr: str(), Kind: "exec", Key: fmt.Sprintf("%064x", i), Digest: str(), Entry: str(),
			Started: time.Date(2026, 3, 1, 12, 0, 0, r.IntN(1e9), time.FixedZone("z", 3600*r.IntN(3))), Duration: time.Duration(r.Int64N(1e12) - 1e6),
			Log: str(), Host: str(), KilnVersion: str(), File: str(), RefsScanned: r.IntN(2) == 0}
		for range r.IntN(4) {
			rec.KeyLines = append(rec.KeyLines, hash.Line{Label: str(), Subject: str(), Value: str(), Note: str()})
		}
		if r.IntN(2) == 0 {
			rec.Attrs = map[string]string{str(): str(), str(): str()}
		}
		if r.IntN(3) == 0 {
			rec.Vars = map[string]string{}
		}
		if r.IntN(2) == 0 {
			rec.Refs = []string{str(), fmt.Sprintf("%064x", i)}
		}
		if r.IntN(3) == 0 {
			rec.Outputs = []Output{{Path: str(), Digest: str()}}
			rec.Resources = map[string]int64{"npu": 8}
			rec.Devices = map[string][]int{"npu": {0, 1}}
			rec.Segments = []Segment{{Started: rec.Started, Duration: 5, Log: str()}}
		}
		if r.IntN(4) == 0 {
			rec.Failure = &Failure{Key: str(), Error: str(), ExitCode: 2, At: rec.Started}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range [][]byte{b, edited(r, b)} {
			var want, got Record
			wantErr := json.Unmarshal(text, &want)
			gotErr := decodeRecord(text, &got)
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("case %d: %s\nencoding/json: %v, decodeRecord: %v", i, text, wantErr, gotErr)
			}
			if diff := cmp.Diff(want, got); wantErr == nil && diff != "" {
				t.Fatalf("case %d: %s\n(-encoding/json +decodeRecord):\n%s", i, text, diff)
			}
		}
	}
}

// edited is b as a hand might leave it: a key spelled otherwise, a field
// set to null, spaces around the punctuation, characters escaped
// otherwise, or cut short.
func edited(r *rand.Rand, b []byte) []byte {
	s := string(b)
	switch r.IntN(6) {
	case 0:
		return []byte(`{"Addr":"x",` + s[1:])
	case 1:
		return []byte(`{"digest":null,` + s[1:])
	case 2:
		return []byte(" { \"host\" : \"h\" , " + s[1:] + " ")
	case 3:
		return []byte(s[:len(s)/2])
	case 4:
		return []byte(strings.NewReplacer("/", `\/`, "a", `\u0061`, "😀", `\ud83d\ude00`, "é", `\u00E9`, "ü", `\uD800`).Replace(s))
	}
	return []byte(`{"unknown":[1,{"a":"}"}],` + s[1:])
}
