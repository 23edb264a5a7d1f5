package wgref

// Float32 row kernels: the elementwise loops the hot kernels run over
// contiguous rows with no call per element. Each function of a row has a
// portable form in Go (vecmath.go) and, on amd64 with AVX2 and FMA, an
// assembly form (vec_amd64.s) that the tests hold to the Go one.

// unaryKind names a float32 function of one operand that runs over rows.
type unaryKind uint8

const (
	unaryNone unaryKind = iota
	unaryRelu
	unaryLeakyRelu   // a: alpha
	unaryClip        // a, b: lower and upper bound
	unaryHardSigmoid // a: alpha, b: beta
	unaryHardSwish
	unaryNeg
	unaryAbs
	unarySqrt
	unaryExp
	unarySigmoid
	unaryTanh
	unaryErf
	unaryGeluErf
	unaryGeluTanh
)

// unaryF32 is a row function and its parameters.
type unaryF32 struct {
	kind unaryKind
	a, b float32
}

// binaryKind names a float32 function of two operands that runs over rows.
type binaryKind uint8

const (
	binaryNone binaryKind = iota
	binaryAdd
	binarySub
	binaryMul
	binaryDiv
	binaryMax
	binaryMin
	binaryPRelu // x < 0 ? slope*x : x
	// The operands reversed, for a scalar first operand: s - x and s / x.
	binaryRSub
	binaryRDiv
)

// reversed is the kind that computes k(s, x) as reversed(x, s), for a
// scalar first operand; false when there is none.
func (k binaryKind) reversed() (binaryKind, bool) {
	switch k {
	case binaryAdd, binaryMul, binaryMax, binaryMin:
		return k, true
	case binarySub:
		return binaryRSub, true
	case binaryDiv:
		return binaryRDiv, true
	}
	return binaryNone, false
}

// chunk is how many elements a strided row is gathered into, computed on
// and scattered from at a time: a stack buffer, so no allocation.
const chunk = 64

// applyRows writes dst = u(src) over out's and x's index space (the same
// shape), in contiguous rows where it can and in gathered chunks where the
// rows are strided. Each chunk is read before it is written, so out may be
// x (may_alias). Large maps are shared with the workers when threads > 1.
func (u unaryF32) applyRows(shape []int, os []float32, oStrides []int, xs []float32, xStrides []int, threads int) {
	var it rowIter
	it.init(shape)
	it.add(oStrides, 0)
	it.add(xStrides, 0)
	it.coalesce()
	if units, size := shareUnits(&it); shares(threads, units, walkOf(&it)) {
		pooledUnary = unaryRows{u: u, it: it, size: size, os: os, xs: xs}
		workers.runRange(units, &pooledUnary)
		pooledUnary = unaryRows{}
		workers.mu.Unlock()
		return
	}
	u.walk(&it, os, xs)
}

// walk is applyRows over a walk set up (and maybe narrowed).
func (u unaryF32) walk(it *rowIter, os, xs []float32) {
	var buf [chunk]float32
	for it.next() {
		o, i, n := it.off[0], it.off[1], it.n
		so, si := it.step[0], it.step[1]
		if so == 1 && si == 1 {
			u.row(os[o:o+n], xs[i:i+n])
			continue
		}
		for done := 0; done < n; done += chunk {
			m := min(chunk, n-done)
			for k := range buf[:m] {
				buf[k] = xs[i]
				i += si
			}
			u.row(buf[:m], buf[:m])
			for _, v := range buf[:m] {
				os[o] = v
				o += so
			}
		}
	}
}

// applyRows writes out = k(a, b) over shape, a and b broadcast to it
// (strides 0 along broadcast dimensions): contiguous rows, rows against
// one broadcast value, and gathered chunks for anything else. Large maps
// are shared with the workers when threads > 1.
func (k binaryKind) applyRows(shape []int, os []float32, oStrides []int, as []float32, aStrides []int, bs []float32, bStrides []int, threads int) {
	var it rowIter
	it.init(shape)
	it.add(oStrides, 0)
	it.add(aStrides, 0)
	it.add(bStrides, 0)
	it.coalesce()
	if units, size := shareUnits(&it); shares(threads, units, walkOf(&it)) {
		pooledBinary = binaryRows{k: k, it: it, size: size, os: os, as: as, bs: bs}
		workers.runRange(units, &pooledBinary)
		pooledBinary = binaryRows{}
		workers.mu.Unlock()
		return
	}
	k.walk(&it, os, as, bs)
}

// walk is applyRows over a walk set up (and maybe narrowed).
func (k binaryKind) walk(it *rowIter, os, as, bs []float32) {
	var abuf, bbuf [chunk]float32
	for it.next() {
		o, i, j, n := it.off[0], it.off[1], it.off[2], it.n
		so, si, sj := it.step[0], it.step[1], it.step[2]
		if so == 1 {
			switch {
			case si == 1 && sj == 1:
				binaryVV(k, os[o:o+n], as[i:i+n], bs[j:j+n])
				continue
			case si == 1 && sj == 0:
				binaryVS(k, os[o:o+n], as[i:i+n], bs[j])
				continue
			case si == 0 && sj == 1:
				if r, ok := k.reversed(); ok {
					binaryVS(r, os[o:o+n], bs[j:j+n], as[i])
					continue
				}
			}
		}
		for done := 0; done < n; done += chunk {
			m := min(chunk, n-done)
			for e := 0; e < m; e++ {
				abuf[e], bbuf[e] = as[i], bs[j]
				i, j = i+si, j+sj
			}
			binaryVV(k, abuf[:m], abuf[:m], bbuf[:m])
			for _, v := range abuf[:m] {
				os[o] = v
				o += so
			}
		}
	}
}

// coalesce merges neighbouring dimensions that every operand walks as one
// (the outer's stride is the inner's times the inner's size, which holds
// for contiguous operands and for ones broadcast along both) and drops
// dimensions of size 1, so that rows are as long as the layouts allow: a
// contiguous tensor is one row, a bias added to [batch, seq, hidden] is
// batch*seq rows of hidden. Call it after adding the operands, before next.
func (it *rowIter) coalesce() {
	for d := 0; d < it.rank; d++ {
		if it.shape[d] == 0 {
			return // nothing to walk; next says so
		}
	}
	r := 0
	for d := 0; d < it.rank; d++ {
		if it.shape[d] == 1 {
			continue
		}
		if r > 0 {
			merge := true
			for k := 0; k < it.nops; k++ {
				if it.strides[k][r-1] != it.strides[k][d]*it.shape[d] {
					merge = false
					break
				}
			}
			if merge {
				it.shape[r-1] *= it.shape[d]
				for k := 0; k < it.nops; k++ {
					it.strides[k][r-1] = it.strides[k][d]
				}
				continue
			}
		}
		it.shape[r] = it.shape[d]
		for k := 0; k < it.nops; k++ {
			it.strides[k][r] = it.strides[k][d]
		}
		r++
	}
	it.rank = r
}
