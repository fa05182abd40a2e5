package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeFlag is a size in bytes written with a unit: 50GiB, 500MB, 2T, 1024.
type sizeFlag int64

var sizeUnits = []struct {
	suffix string
	bytes  float64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3},
	{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10},
	{"B", 1},
}

func (s *sizeFlag) String() string { return strconv.FormatInt(int64(*s), 10) }

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

// parseSize reads a size: a number with an optional unit (KiB, MiB, GiB,
// TiB and K, M, G, T in powers of 1024; KB, MB, GB, TB in powers of 1000).
func parseSize(v string) (int64, error) {
	t := strings.TrimSpace(v)
	mult := 1.0
	for _, u := range sizeUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.bytes
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 || math.IsInf(f*mult, 0) || f*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size: write a positive number and a unit, e.g. 50GiB or 500MB", v)
	}
	return int64(f * mult), nil
}

// refsFlag collects -keep-ref, which may be given more than once.
type refsFlag []string

func (r *refsFlag) String() string { return strings.Join(*r, ",") }

func (r *refsFlag) Set(v string) error {
	if v == "" {
		return fmt.Errorf("give a branch, tag or commit")
	}
	*r = append(*r, v)
	return nil
}
