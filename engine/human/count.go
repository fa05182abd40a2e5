package human

import (
	"fmt"
	"strings"
)

// Count writes n with its noun: "1 node", "3 nodes", "2 mismatches".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %s", n, Plural(noun))
}

// Plural is the plural of an English noun kiln uses: an "es" after s, x,
// ch and sh, an "s" otherwise.
func Plural(noun string) string {
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return noun + "es"
		}
	}
	return noun + "s"
}

// Bytes writes a byte count with a binary unit: 512 B, 1.5 KiB, 2.0 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
