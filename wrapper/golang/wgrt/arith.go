package wgrt

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

// Mod is a - b*FloorDiv(a, b).
func Mod(a, b int) int {
	m := a % b
	if m != 0 && ((m < 0) != (b < 0)) {
		m += b
	}
	return m
}
