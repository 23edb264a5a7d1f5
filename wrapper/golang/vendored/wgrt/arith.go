package wgrt

import "math"

// Floor division and modulo as graph expressions define them: rounding
// toward negative infinity, the remainder with the divisor's sign.

// FloorDiv is a // b rounded toward negative infinity.
func FloorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// addOK is a + b and whether it fits an int.
func addOK(a, b int) (int, bool) {
	s := a + b
	return s, (a^s)&(b^s) >= 0
}

// mulOK is a * b and whether it fits an int.
func mulOK(a, b int) (int, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt) || (b == -1 && a == math.MinInt) {
		return p, false
	}
	return p, true
}

// Mod is a - b*FloorDiv(a, b).
func Mod(a, b int) int {
	m := a % b
	if m != 0 && ((m < 0) != (b < 0)) {
		m += b
	}
	return m
}
