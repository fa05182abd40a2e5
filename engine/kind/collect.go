package kind

import "time"

// Collector is implemented by kinds that keep files of their own in the
// state folder between builds (a fetch's partial downloads). kiln gc asks
// each for what may go while it holds the apply lock, so no build is using
// those files; Collect removes it (nothing, for a dry run) and reports what
// it removed and what it keeps, and why.
type Collector interface {
	Collect(state string, o CollectOptions) ([]Leftover, error)
}

// CollectOptions are kiln gc's.
type CollectOptions struct {
	DryRun bool
	// OlderThan, when not zero, is kiln gc -older-than: what is younger
	// stays.
	OlderThan time.Duration
	Now       time.Time
}

// Leftover is a file (or a group of files) of a kind in the state folder
// that gc removed, would remove, or keeps.
type Leftover struct {
	Path string // relative to the state folder
	Size int64
	Why  string // why it goes, or why it stays
	Kept bool
}
