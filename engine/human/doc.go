// Package human writes what kiln tells people the one way it is written
// everywhere: a count with its noun in the right number, a byte size in
// binary units, and the name closest to a mistyped one. It depends on
// nothing else in kiln, so views, the engine and node kinds share it.
package human
