package expr

// VanishesWith reports whether e is 0 whenever s is, as far as the form
// shows: s is a single symbol or function atom and every term of e has it
// as a factor (4*n and n*m vanish with n; 1 + 4*(n-1) does not).
func VanishesWith(e, s Expr) bool {
	a := soleAtom(s)
	if a == nil {
		return false
	}
	for _, t := range e.terms() {
		found := false
		for _, m := range t.mono {
			if m.key == a.key {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
