package wgref

import "sync"

// Cache blocking of sgemm: a kc×nc panel of B and the m×kc rows of A are
// packed so that the micro-kernel streams them from cache (as in BLIS and
// ORT's MLAS).
const (
	blockK = 256
	blockN = 1024
)

// matrix is a float32 matrix view: element (i, j) is data[i*rs+j*cs], so a
// transposed or strided operand needs no copy before packing.
type matrix struct {
	data   []float32
	rs, cs int
}

func (m matrix) at(i, j int) float32 { return m.data[i*m.rs+j*m.cs] }

// packs are the packing buffers of one sgemm call.
type packs struct{ a, b []float32 }

// sgemm computes C = A·B, or C += A·B when accumulate, for A m×k and B k×n;
// C is row-major with ldc floats between rows (its columns contiguous).
// B is the matrix b, or, when conv is not nil, a convolution's input read
// as im2col would lay it out (never materialized). A is packed once per
// block of k (not once per block of n), B once per block of k and n, or
// not at all when it is row-major; with SetThreads(n > 1) the column
// panels of each block are shared out to goroutines. The packing buffers
// are work's first gemmPackFloats(m, n, k) floats.
func sgemm(m, n, k int, a, b matrix, conv *im2colB, c []float32, ldc int, accumulate bool, work []float32) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !accumulate {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		return
	}
	kc0 := min(k, blockK)
	split := ceilTo(m, maxMR) * kc0
	p := packs{a: work[:split], b: work[split:gemmPackFloats(m, n, k)]}
	// A row-major B is read in place, whole panels at least; only a last
	// panel narrower than nr is packed (padded with zeros).
	direct := conv == nil && b.cs == 1
	j := gemmJob{p: p, m: m, c: c, ldc: ldc, dm: b, direct: direct}
	for pc := 0; pc < k; pc += blockK {
		kc := min(blockK, k-pc)
		j.pc, j.kc, j.acc = pc, kc, accumulate || pc > 0
		packA(p.a, a, 0, pc, m, kc)
		for jc := 0; jc < n; jc += blockN {
			nc := min(blockN, n-jc)
			j.jc, j.nc, j.full = jc, nc, nc/nr*nr
			switch {
			case conv != nil:
				conv.packB(p.b, pc, jc, kc, nc)
			case !direct:
				packB(p.b, b, pc, jc, kc, nc)
			case j.full < nc:
				packB(p.b, b, pc, jc+j.full, kc, nc-j.full)
			}
			panels := (nc + nr - 1) / nr
			if threads <= 1 {
				j.panels(0, panels)
			} else {
				shared := j // escapes to the goroutines; j itself stays on the stack
				parallel(panels, shared.panels)
			}
		}
	}
}

// gemmJob is one block of sgemm: packed A, B (packed, or read in place)
// and where the products go.
type gemmJob struct {
	p                      packs
	m, ldc, pc, kc, jc, nc int
	full                   int // columns of B read in place (whole panels)
	c                      []float32
	dm                     matrix
	direct, acc            bool
}

// panels runs the micro-kernel over column panels [from, to) and every row
// panel.
func (j *gemmJob) panels(from, to int) {
	var edge [maxMR * maxNR]float32
	kc, m, ldc := j.kc, j.m, j.ldc
	for q := from; q < to; q++ {
		jr := q * nr
		bp, ldb := j.p.b[jr*kc:jr*kc+nr*kc], nr
		switch {
		case j.direct && jr < j.full:
			bp, ldb = j.dm.data[j.pc*j.dm.rs+j.jc+jr:], j.dm.rs
		case j.direct:
			bp = j.p.b[:nr*kc]
		}
		for ir := 0; ir < m; ir += mr {
			ap := j.p.a[ir*kc : ir*kc+mr*kc]
			ci := ir*ldc + j.jc + jr
			rows, cols := min(mr, m-ir), min(nr, j.nc-jr)
			if rows == mr && cols == nr {
				microKernel(kc, ap, bp, ldb, j.c[ci:], ldc, j.acc)
				continue
			}
			microKernel(kc, ap, bp, ldb, edge[:], nr, false)
			for i := 0; i < rows; i++ {
				row := j.c[ci+i*ldc : ci+i*ldc+cols]
				if j.acc {
					for e := range row {
						row[e] += edge[i*nr+e]
					}
				} else {
					copy(row, edge[i*nr:i*nr+cols])
				}
			}
		}
	}
}

// parallel runs work over [0, n) split in up to threads contiguous parts,
// one per goroutine, and waits for them.
func parallel(n int, work func(from, to int)) {
	t := min(threads, n)
	if t <= 1 {
		work(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < t; i++ {
		from, to := n*i/t, n*(i+1)/t
		if i == t-1 {
			work(from, to)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(from, to)
		}()
	}
	wg.Wait()
}

// packA copies A[i0:i0+mc][p0:p0+kc] into panels of mr rows: panel r holds,
// for each step p, the mr values A[i0+r*mr+i][p0+p] (zero past the last
// row).
func packA(dst []float32, a matrix, i0, p0, mc, kc int) {
	for ir := 0; ir < mc; ir += mr {
		panel := dst[ir*kc : ir*kc+mr*kc]
		rows := min(mr, mc-ir)
		for i := 0; i < mr; i++ {
			if i >= rows {
				for p := 0; p < kc; p++ {
					panel[p*mr+i] = 0
				}
				continue
			}
			src := a.data[(i0+ir+i)*a.rs+p0*a.cs:]
			if a.cs == 1 {
				for p, v := range src[:kc] {
					panel[p*mr+i] = v
				}
				continue
			}
			for p := 0; p < kc; p++ {
				panel[p*mr+i] = src[p*a.cs]
			}
		}
	}
}

// packB copies B[p0:p0+kc][j0:j0+nc] into panels of nr columns: panel q
// holds, for each step p, the nr values B[p0+p][j0+q*nr+j] (zero past the
// last column).
func packB(dst []float32, b matrix, p0, j0, kc, nc int) {
	for jr := 0; jr < nc; jr += nr {
		panel := dst[jr*kc : jr*kc+nr*kc]
		cols := min(nr, nc-jr)
		for p := 0; p < kc; p++ {
			out := panel[p*nr : p*nr+nr]
			row := (p0+p)*b.rs + (j0+jr)*b.cs
			switch {
			case b.cs == 1 && cols == 32:
				// A whole panel row: one move, no memmove call.
				*(*[32]float32)(out) = *(*[32]float32)(b.data[row : row+32])
			case b.cs == 1 && cols == 16:
				*(*[16]float32)(out) = *(*[16]float32)(b.data[row : row+16])
			case b.cs == 1:
				copy(out, b.data[row:row+cols])
			default:
				for j := 0; j < cols; j++ {
					out[j] = b.data[row+j*b.cs]
				}
			}
			clear(out[cols:])
		}
	}
}
