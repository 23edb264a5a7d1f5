package wgref

// The assembly row kernels (vec_amd64.s) where the CPU has AVX2 and FMA;
// the Go forms (vecmath.go) elsewhere and for the functions without one.

// vecAVX2 says whether the row kernels run in assembly: where the GEMM's
// AVX2 and FMA check passes (microkernel_amd64.go); tests switch it off to
// hold the Go forms to the same results.
var vecAVX2 = haveAVX2FMA

//go:noescape
func addVVAVX2(dst, a, b *float32, n int)

//go:noescape
func subVVAVX2(dst, a, b *float32, n int)

//go:noescape
func mulVVAVX2(dst, a, b *float32, n int)

//go:noescape
func divVVAVX2(dst, a, b *float32, n int)

//go:noescape
func addVSAVX2(dst, a *float32, n int, s float32)

//go:noescape
func subVSAVX2(dst, a *float32, n int, s float32)

//go:noescape
func mulVSAVX2(dst, a *float32, n int, s float32)

//go:noescape
func divVSAVX2(dst, a *float32, n int, s float32)

//go:noescape
func rsubVSAVX2(dst, a *float32, n int, s float32)

//go:noescape
func rdivVSAVX2(dst, a *float32, n int, s float32)

// preluVSAVX2 is PRelu with one slope s (torch.nn.PReLU()'s default).
//
//go:noescape
func preluVSAVX2(dst, a *float32, n int, s float32)

//go:noescape
func reluAVX2(dst, src *float32, n int)

//go:noescape
func scaleShiftRowsAVX2(dst *float32, ldd int, src *float32, lds, rows, cols int, scale, shift *float32)

// scaleShiftRows sets dst row i (rows ldd floats apart) to src row i
// (lds apart) · scale[i] + shift[i] over cols columns, the product
// rounded before the sum.
func scaleShiftRows(dst []float32, ldd int, src []float32, lds, cols int, scale, shift []float32) {
	rows := len(scale)
	if rows == 0 || cols == 0 {
		return
	}
	shift = shift[:rows]
	_, _ = dst[(rows-1)*ldd+cols-1], src[(rows-1)*lds+cols-1]
	vec := 0
	if vecAVX2 {
		vec = cols &^ 7
		if vec > 0 {
			scaleShiftRowsAVX2(&dst[0], ldd, &src[0], lds, rows, vec, &scale[0], &shift[0])
		}
	}
	if vec < cols {
		scaleShiftRowsGo(dst[vec:], ldd, src[vec:], lds, cols-vec, scale, shift)
	}
}

//go:noescape
func expAVX2(dst, src *float32, n int)

//go:noescape
func sigmoidAVX2(dst, src *float32, n int)

//go:noescape
func siluAVX2(dst, src *float32, n int)

//go:noescape
func tanhAVX2(dst, src *float32, n int)

//go:noescape
func erfAVX2(dst, src *float32, n int)

//go:noescape
func geluAVX2(dst, src *float32, n int)

//go:noescape
func clipAVX2(dst, src *float32, n int, lo, hi float32)

//go:noescape
func leakyReluAVX2(dst, src *float32, n int, alpha float32)

//go:noescape
func hardSigmoidAVX2(dst, src *float32, n int, alpha, beta float32)

//go:noescape
func hardSwishAVX2(dst, src *float32, n int)

// row is u over a row; dst may be src.
func (u unaryF32) row(dst, src []float32) {
	n := len(dst)
	if !vecAVX2 || n == 0 {
		u.rowGo(dst, src)
		return
	}
	src = src[:n]
	switch u.kind {
	case unaryRelu:
		reluAVX2(&dst[0], &src[0], n)
	case unaryExp, unarySigmoid, unaryTanh, unaryErf, unaryGeluErf, unaryClip, unaryLeakyRelu, unaryHardSigmoid, unaryHardSwish:
		// Whole blocks of 8 in place; the rest through a block of 8 on
		// the stack, so that every element takes the same instructions.
		body := n &^ 7
		if body > 0 {
			unary8AVX2(u, &dst[0], &src[0], body)
		}
		if body < n {
			var buf [8]float32
			copy(buf[:], src[body:])
			unary8AVX2(u, &buf[0], &buf[0], 8)
			copy(dst[body:], buf[:n-body])
		}
	default:
		u.rowGo(dst, src)
	}
}

// siluRow is SiLU over row in place, in one pass, where the row kernels
// run in assembly; false elsewhere.
func siluRow(row []float32) bool {
	if !vecAVX2 {
		return false
	}
	n := len(row)
	body := n &^ 7
	if body > 0 {
		siluAVX2(&row[0], &row[0], body)
	}
	if body < n {
		var buf [8]float32
		copy(buf[:], row[body:])
		siluAVX2(&buf[0], &buf[0], 8)
		copy(row[body:], buf[:n-body])
	}
	return true
}

// unary8AVX2 runs the assembly of u over n floats, a multiple of 8.
func unary8AVX2(u unaryF32, dst, src *float32, n int) {
	switch u.kind {
	case unaryExp:
		expAVX2(dst, src, n)
	case unarySigmoid:
		sigmoidAVX2(dst, src, n)
	case unaryTanh:
		tanhAVX2(dst, src, n)
	case unaryErf:
		erfAVX2(dst, src, n)
	case unaryGeluErf:
		geluAVX2(dst, src, n)
	case unaryClip:
		clipAVX2(dst, src, n, u.a, u.b)
	case unaryLeakyRelu:
		leakyReluAVX2(dst, src, n, u.a)
	case unaryHardSigmoid:
		hardSigmoidAVX2(dst, src, n, u.a, u.b)
	case unaryHardSwish:
		hardSwishAVX2(dst, src, n)
	}
}

// binaryVV is dst = k(a, b) elementwise; dst may be a or b.
func binaryVV(k binaryKind, dst, a, b []float32) {
	n := len(dst)
	if !vecAVX2 || n == 0 {
		binaryVVGo(k, dst, a, b)
		return
	}
	a, b = a[:n], b[:n]
	switch k {
	case binaryAdd:
		addVVAVX2(&dst[0], &a[0], &b[0], n)
	case binarySub:
		subVVAVX2(&dst[0], &a[0], &b[0], n)
	case binaryMul:
		mulVVAVX2(&dst[0], &a[0], &b[0], n)
	case binaryDiv:
		divVVAVX2(&dst[0], &a[0], &b[0], n)
	default:
		binaryVVGo(k, dst, a, b)
	}
}

// binaryVS is dst = k(a, s) elementwise; dst may be a.
func binaryVS(k binaryKind, dst, a []float32, s float32) {
	n := len(dst)
	if !vecAVX2 || n == 0 {
		binaryVSGo(k, dst, a, s)
		return
	}
	a = a[:n]
	switch k {
	case binaryAdd:
		addVSAVX2(&dst[0], &a[0], n, s)
	case binarySub:
		subVSAVX2(&dst[0], &a[0], n, s)
	case binaryMul:
		mulVSAVX2(&dst[0], &a[0], n, s)
	case binaryDiv:
		divVSAVX2(&dst[0], &a[0], n, s)
	case binaryRSub:
		rsubVSAVX2(&dst[0], &a[0], n, s)
	case binaryRDiv:
		rdivVSAVX2(&dst[0], &a[0], n, s)
	case binaryPRelu:
		preluVSAVX2(&dst[0], &a[0], n, s)
	default:
		binaryVSGo(k, dst, a, s)
	}
}
