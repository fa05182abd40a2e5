package fetch

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
)

var _ kind.Collector = (*Fetch)(nil)

// ResumeFor is how long kiln gc keeps an interrupted download for a later
// apply to resume, counted from its last byte; kiln gc -older-than
// replaces it.
const ResumeFor = 7 * 24 * time.Hour

// Collect is kiln gc's part for fetch: the partial downloads no build is
// resuming (gc holds the apply lock, so none is). The rule:
//
//   - a download whose extraction was refused (<name>.refused beside it) is
//     removed at once: it is complete and verified, and kept only so that a
//     build with other limits extracts it without downloading it again;
//   - a validator or refusal note whose download is gone is removed;
//   - an interrupted download is kept to resume until no byte has arrived
//     for ResumeFor (or for -older-than, when given), then removed. gc reads
//     no pipeline, so it goes by age, not by whether a node still wants the
//     URL; a resume is only accepted for the same remote content (the
//     validator), so an old one is never wrong, only large.
//
// Files of other names in the folder are left alone.
func (f *Fetch) Collect(state string, o kind.CollectOptions) ([]kind.Leftover, error) {
	dir := filepath.Join(state, "fetch", "partial")
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the partial downloads in %s: %w", dir, err)
	}
	keep := ResumeFor
	if o.OlderThan > 0 {
		keep = o.OlderThan
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	files := map[string][]fs.DirEntry{} // by download name
	for _, de := range des {
		name := strings.TrimSuffix(strings.TrimSuffix(de.Name(), validatorSuffix), refusedSuffix)
		if isDownloadName(name) && de.Type().IsRegular() {
			files[name] = append(files[name], de)
		}
	}
	var out []kind.Leftover
	for _, name := range slices.Sorted(maps.Keys(files)) {
		l := kind.Leftover{Path: filepath.Join("fetch", "partial", name)}
		var data fs.FileInfo
		refused := false
		for _, de := range files[name] {
			fi, err := de.Info()
			if err != nil {
				continue
			}
			l.Size += fi.Size()
			switch {
			case de.Name() == name:
				data = fi
			case strings.HasSuffix(de.Name(), refusedSuffix):
				refused = true
			}
		}
		switch {
		case data == nil:
			l.Why = "what a finished download left"
		case refused:
			l.Why = "a download whose extraction was refused"
		case now.Sub(data.ModTime()) < keep:
			age := now.Sub(data.ModTime())
			l.Kept = true
			l.Why = fmt.Sprintf("an interrupted download (%s), kept to resume: its last byte came %s ago, gc removes it after %s", human.Bytes(data.Size()), roundAge(age), roundAge(keep))
		default:
			l.Why = fmt.Sprintf("an interrupted download whose last byte came %s ago", roundAge(now.Sub(data.ModTime())))
		}
		if !l.Kept && !o.DryRun {
			for _, de := range files[name] {
				if err := os.Remove(filepath.Join(dir, de.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return out, fmt.Errorf("removing the partial download %s: %w", de.Name(), err)
				}
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// isDownloadName reports whether name is one openPartial gives: the sha256
// of a URL in hex.
func isDownloadName(name string) bool {
	if len(name) != 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// roundAge writes an age in its largest whole unit: "9 days", "5 hours",
// "3 minutes", "12 seconds".
func roundAge(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}} {
		if d >= u.d {
			return human.Count(int(d/u.d), u.name)
		}
	}
	return human.Count(int(d/time.Second), "second")
}
