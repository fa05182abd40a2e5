package metrics

import "strconv"

// float10 holds the powers of ten that a float64 represents exactly.
var float10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat parses a decimal number as strconv.ParseFloat does. Numbers
// whose digits fit in 53 bits and whose power of ten is exact — most of
// what a trainer prints — take Clinger's fast path, which is correctly
// rounded: one multiplication or division of two exact float64s. The rest
// go to strconv.
func parseFloat(b []byte) (float64, bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	sawDigit, sawDot := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if mant == 0 && c == '0' {
				if sawDot {
					exp--
				}
				continue
			}
			if digits >= 19 {
				return slowFloat(b)
			}
			mant = mant*10 + uint64(c-'0')
			digits++
			if sawDot {
				exp--
			}
		case c == '.' && !sawDot:
			sawDot = true
		case c == 'e' || c == 'E':
			e, ok := parseExp(b[i+1:])
			if !ok || !sawDigit {
				return slowFloat(b)
			}
			exp += e
			i = len(b)
		default:
			return slowFloat(b)
		}
	}
	if !sawDigit {
		return 0, false
	}
	if mant >= 1<<53 || exp < -22 || exp > 22 {
		return slowFloat(b)
	}
	f := float64(mant)
	if exp < 0 {
		f /= float10[-exp]
	} else {
		f *= float10[exp]
	}
	if neg {
		f = -f
	}
	return f, true
}

// parseExp reads an exponent's optional sign and up to 4 digits.
func parseExp(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 4 {
		return 0, false
	}
	e := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		e = e*10 + int(c-'0')
	}
	if neg {
		e = -e
	}
	return e, true
}

func slowFloat(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}
