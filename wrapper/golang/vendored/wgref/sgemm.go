package wgref

// Cache blocking of sgemm: a kc×nc panel of B and mc×kc rows of A are
// packed so that the micro-kernel streams them from cache (as in BLIS and
// ORT's MLAS). blockM keeps A's block in L2 (528 KB of Zen 5's 1 MB at kc
// 256) while covering a convolution's 512 output channels in one block,
// so that im2col packs B once. blockN is 512 columns (512 KB of B at kc
// 256): as fast as 1024 on the CNNs (a block of B is used once when A is
// one block), and a conv's planned scratch half as large, which with
// reference kernels is what a network's first conv adds to its peak.
const (
	blockK = 256
	blockN = 512
	blockM = 528
)

// matrix is a float32 matrix view: element (i, j) is data[i*rs+j*cs], so a
// transposed or strided operand needs no copy before packing.
type matrix struct {
	data   []float32
	rs, cs int
}

func (m matrix) at(i, j int) float32 { return m.data[i*m.rs+j*m.cs] }

// sgemm computes C = A·B, or C += A·B when accumulate, for A m×k and B k×n;
// C is row-major with ldc floats between rows (its columns contiguous).
// B is the matrix b, or, when conv is not nil, a convolution's input read
// as im2col would lay it out (never materialized). A is packed once per
// block of k and m (not once per block of n), B once per block of k, m and
// n, or not at all when it is row-major. With threads > 1 the packing and
// the micro-kernel calls of each block are shared with the worker pool.
// Up to gemvMaxRows rows of A times a B other than a convolution's run row
// by row (gemvRows), unpacked. The packing buffers are work's first
// gemmPackFloatsOf(m, n, k, formOf(b, conv), sides) floats, sides the
// operands pre holds for this product.
func sgemm(m, n, k int, a, b matrix, conv *im2colB, c []float32, ldc int, accumulate bool, work []float32, threads int) {
	sgemmRows(m, n, k, a, b, conv, c, ldc, accumulate, work, nil, prepacked{}, threads)
}

// prepacked is an operand of sgemm packed once (prepare.go): A (group
// group of it) or B, or neither.
type prepacked struct {
	pk    *packedGEMM
	group int
}

// sgemmRows is sgemm that finishes C's rows with ep (rowEpilogue, nil:
// none) block by block, as soon as their product is complete, and reads
// the panels of A or B from pre where it holds them (for this product on
// the running path) instead of packing them.
func sgemmRows(m, n, k int, a, b matrix, conv *im2colB, c []float32, ldc int, accumulate bool, work []float32, ep *rowEpilogue, pre prepacked, threads int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !accumulate {
			for i := 0; i < m; i++ {
				clear(c[i*ldc : i*ldc+n])
			}
		}
		ep.finish(c, ldc, 0, m, 0, n)
		return
	}
	if columnFits(m, n, k, a, b, conv, ldc, accumulate) {
		dotRows(a.data, a.rs, b.data[:k], c[:m])
		ep.finish(c, ldc, 0, m, 0, n)
		return
	}
	form := formOf(b, conv)
	if form != bIm2col && m <= gemvMaxRows {
		gemvRows(m, n, k, a, b, c, ldc, accumulate)
		ep.finish(c, ldc, 0, m, 0, n)
		return
	}
	j := gemmJob{m: m, n: n, k: k, a: a, b: b, c: c, ldc: ldc, accumulate: accumulate,
		// A row-major B is read in place, whole panels at least; only
		// a last panel narrower than nr is packed (padded with zeros),
		// at the start of pb.
		direct: form == bRowMajor}
	var sides packedSides
	if pre.pk.forA(m, k) != nil {
		j.preA, j.preGroup, sides.a = pre.pk, pre.group, true
	} else if pre.pk.forB(n, k, form) != nil {
		j.preB, sides.b = pre.pk, true
	}
	split := 0
	if !sides.a {
		split = ceilTo(min(m, blockM), maxMR) * min(k, blockK)
	}
	j.pa, j.pb = work[:split], work[split:gemmPackFloatsOf(m, n, k, form, sides)]
	if workers.take(threads) {
		// The job lives in pooledJob while the workers read it, so that
		// the caller's copy never escapes to the heap.
		pooledJob = j
		pooledJob.pooled = true
		if conv != nil {
			pooledConv = *conv
			pooledJob.conv = &pooledConv
		}
		if ep != nil {
			pooledEpilogue = *ep
			pooledJob.ep = &pooledEpilogue
		}
		pooledJob.run()
		pooledJob, pooledConv, pooledEpilogue = gemmJob{}, im2colB{}, rowEpilogue{}
		workers.mu.Unlock()
		return
	}
	serial := j // not j: j flows to pooledJob, and conv and ep must not
	serial.conv, serial.ep = conv, ep
	serial.run()
}

// columnMaxFloats bounds the A that a product of one column reads in
// place, row by row, on one thread (4 MB: a squeeze-and-excitation
// block's 1x1 convolutions and then some).
const columnMaxFloats = 1 << 20

// columnFits reports whether sgemmRows computes C = A·B as rows of A
// dotted with B's one column (dotRows): both contiguous, as is C's
// column, A given in place, and small enough for one thread. Packing A
// for the micro-kernel, and running it one column wide, costs several
// times that (a 1x1 convolution over a 1x1 map, as every
// squeeze-and-excitation block has).
func columnFits(m, n, k int, a, b matrix, conv *im2colB, ldc int, accumulate bool) bool {
	return n == 1 && conv == nil && !accumulate && ldc == 1 && b.rs == 1 && a.cs == 1 && a.data != nil && m*k <= columnMaxFloats
}

// pooledJob is the sgemm that holds the worker pool, and pooledConv its
// copy of the convolution it reads (copies, so that the caller's values
// never escape to the heap).
var (
	pooledJob      gemmJob
	pooledConv     im2colB
	pooledEpilogue rowEpilogue
)

// minPartFlops is the least work worth a part of a parallel block: a few
// microseconds, well above the cost of handing it to a spinning worker.
const minPartFlops = 1 << 20

// minPackParallel is the least of A's floats whose packing is split.
const minPackParallel = 1 << 13

// gemmJob is one sgemm call, and the block of it being worked on.
type gemmJob struct {
	m, n, k    int
	a, b       matrix
	conv       *im2colB
	ep         *rowEpilogue // finishes C's rows after the last block of k
	c          []float32
	ldc        int
	accumulate bool
	pa, pb     []float32   // packed A (one block of k and m), packed B (one block of k and n, or its last panel when direct)
	direct     bool        // B read in place where its panels are whole
	stage      bool        // whole panels of a direct B are copied, one at a time, before their row panels run (stageDirect)
	pooled     bool        // this is pooledJob, and the pool is held
	preA, preB *packedGEMM // A's or B's panels packed once (nil: packed here)
	preGroup   int         // the group of preA

	// The block: k from pc (kc deep), m from ic (mc high), n from jc (nc
	// wide); acc when it adds to C.
	pc, kc, ic, mc, jc, nc int
	full                   int // columns of B read in place (whole panels)
	acc                    bool
	// What the parts of the current step do, and how the block is cut:
	// parts cover colParts ranges of column panels by rowParts ranges of
	// row panels.
	step               gemmStep
	colParts, rowParts int
	packedA            bool // A's block is packed (a row split packs it in its first column block)
	once               int  // splitOnce's rows or columns per chunk
}

type gemmStep int

const (
	stepPackA       gemmStep = iota // parts pack ranges of A's row panels
	stepPackB                       // parts pack ranges of B's column panels
	stepCompute                     // parts run the micro-kernel over tiles
	stepPackCompute                 // parts pack their column panels, then run them over every row
	stepRowsCompute                 // parts pack their row panels (the first time), then run them over every column
	stepRowsOnce                    // parts run the whole product for their rows (splitOnce)
	stepColsOnce                    // parts run the whole product for their columns (splitOnce)
)

func (j *gemmJob) run() {
	if j.pooled && j.splitOnce() {
		return
	}
	for pc := 0; pc < j.k; pc += blockK {
		j.pc, j.kc, j.acc = pc, min(blockK, j.k-pc), j.accumulate || pc > 0
		for ic := 0; ic < j.m; ic += blockM {
			j.ic, j.mc = ic, min(blockM, j.m-ic)
			if j.preA != nil {
				j.pa = j.preA.blockA(j.preGroup, pc, j.kc, ic)
			}
			j.runRows()
		}
	}
}

// runRows runs the block of rows [ic, ic+mc) at depth [pc, pc+kc) over
// every column. With the pool it splits the larger of the block's two
// loops: column panels, each part packing its own (A packed first, by
// parts of its own); or, when B is read in place and rows are many, row
// panels, each part packing its own rows of A, so that one step serves
// both. With few of either, B is packed, then tiles are cut both ways.
func (j *gemmJob) runRows() {
	rowPanels := panelsOf(j.mc, mr)
	j.packedA = j.preA != nil
	for jc := 0; jc < j.n; jc += blockN {
		j.jc, j.nc = jc, min(blockN, j.n-jc)
		j.full = 0
		if j.direct {
			j.full = j.nc / nr * nr
		}
		colPanels := panelsOf(j.nc, nr)
		parts := j.maxParts(2 * j.mc * j.nc * j.kc)
		// One part at a time may stage into pb's one staging panel.
		j.stage = parts == 1 && j.stageDirect(rowPanels)
		if parts > 1 && parts <= rowPanels && j.direct {
			// B's last panel, narrower than nr, is packed first (a
			// few microseconds at most).
			j.packPanels(j.full/nr, colPanels)
			j.step, j.rowParts, j.colParts = stepRowsCompute, parts, 1
			j.parallel(parts)
			j.packedA = true
			continue
		}
		j.packA(rowPanels)
		if parts <= colPanels {
			// Enough columns: each part packs its own panels and
			// runs them over all rows, with no wait in between.
			j.step, j.colParts, j.rowParts = stepPackCompute, parts, 1
			j.parallel(parts)
			continue
		}
		// Few columns: pack them all, then split rows too.
		j.step, j.colParts = stepPackB, colPanels
		j.parallel(colPanels)
		j.step, j.rowParts = stepCompute, min(rowPanels, panelsOf(parts, colPanels))
		j.parallel(j.colParts * j.rowParts)
	}
}

// stageDirect reports whether a direct B's whole panels are copied
// before their row panels run rather than read in place: where B's rows
// are short (a 7x7 map's 49 floats), a panel read in place spans two
// cache lines a step, kc·nr·8 bytes, all of a 32 KB L1 (Zen 3 and 4) at
// kc 256 and nr 16, which the A panels then keep evicting. The copy
// takes the second nr·kc floats of pb, which holds maxNR·kc: on the
// 16-column path, with enough row panels to pay for it.
func (j *gemmJob) stageDirect(rowPanels int) bool {
	return j.direct && 2*nr <= maxNR && rowPanels >= 16 && j.b.rs < 4*nr && len(j.pb) >= 2*nr*j.kc
}

// packA packs A's block once per block of rows, in parts when it is large.
func (j *gemmJob) packA(rowPanels int) {
	if j.packedA {
		return
	}
	parts := 1
	if j.pooled && j.mc*j.kc >= minPackParallel {
		parts = min(rowPanels, workers.limit)
	}
	j.step, j.rowParts = stepPackA, parts
	j.parallel(parts)
	j.packedA = true
}

// maxParts is how many parts work of the given flops is worth: none under
// minPartFlops, up to four per thread, so that a thread delayed by other
// load leaves its share to the others, and a multiple of the threads, so
// that parts of equal size keep every thread busy to the end.
func (j *gemmJob) maxParts(flops int) int {
	if !j.pooled || flops < 2*minPartFlops {
		return 1
	}
	return ceilTo(min(4*workers.limit, flops/minPartFlops), workers.limit)
}

// parallel runs parts of the current step, with the pool when held.
func (j *gemmJob) parallel(parts int) {
	if j.pooled && parts > 1 {
		workers.run(&pooledJob, parts)
		return
	}
	for i := 0; i < parts; i++ {
		j.runPart(i)
	}
}

// panelsOf is how many panels of size cover n.
func panelsOf(n, size int) int { return (n + size - 1) / size }

// share is the i-th of parts contiguous ranges of [0, n).
func share(i, parts, n int) (from, to int) { return n * i / parts, n * (i + 1) / parts }

func (j *gemmJob) runPart(i int) {
	switch j.step {
	case stepPackA:
		j.packRows(share(i, j.rowParts, panelsOf(j.mc, mr)))
	case stepPackB:
		j.packPanels(share(i, j.colParts, panelsOf(j.nc, nr)))
	case stepCompute:
		q0, q1 := share(i%j.colParts, j.colParts, panelsOf(j.nc, nr))
		r0, r1 := share(i/j.colParts, j.rowParts, panelsOf(j.mc, mr))
		j.tiles(q0, q1, r0, r1)
	case stepPackCompute:
		q0, q1 := share(i, j.colParts, panelsOf(j.nc, nr))
		j.packPanels(q0, q1)
		j.tiles(q0, q1, 0, panelsOf(j.mc, mr))
	case stepRowsOnce:
		j.rowsOnce(i)
	case stepColsOnce:
		j.colsOnce(i)
	case stepRowsCompute:
		r0, r1 := share(i, j.rowParts, panelsOf(j.mc, mr))
		if !j.packedA {
			j.packRows(r0, r1)
		}
		j.tiles(0, panelsOf(j.nc, nr), r0, r1)
	}
}

// packRows packs the block's row panels [r0, r1) of A into their places
// in pa.
func (j *gemmJob) packRows(r0, r1 int) {
	i0, i1 := r0*mr, min(r1*mr, j.mc)
	if i0 < i1 {
		packA(j.pa[i0*j.kc:], j.a, j.ic+i0, j.pc, i1-i0, j.kc)
	}
}

// packPanels packs the block's column panels [q0, q1) of B (those not
// read in place) into their places in pb, counted from the first column
// not read in place.
func (j *gemmJob) packPanels(q0, q1 int) {
	c0, c1 := q0*nr, min(q1*nr, j.nc)
	c0 = max(c0, j.full)
	if c0 >= c1 || j.preB != nil {
		return
	}
	dst := j.pb[(c0-j.full)*j.kc:]
	if j.conv != nil {
		j.conv.packB(dst, j.pc, j.jc+c0, j.kc, c1-c0)
	} else {
		packB(dst, j.b, j.pc, j.jc+c0, j.kc, c1-c0)
	}
}

// tiles runs the micro-kernel over column panels [q0, q1) by row panels
// [r0, r1) of the block (rows counted from ic).
func (j *gemmJob) tiles(q0, q1, r0, r1 int) {
	var edge [maxMR * maxNR]float32
	kc, ldc := j.kc, j.ldc
	last := j.ep != nil && j.pc+j.kc == j.k // the product is complete
	byTile := last && j.ep.byTile()
	var fin tileFinish
	if byTile && kc > 0 {
		fin = running.tileFinishOf(j.ep)
	}
	for q := q0; q < q1; q++ {
		jr := q * nr
		var bp []float32
		ldb := nr
		if jr < j.full && j.stage {
			bp = j.pb[nr*kc : 2*nr*kc]
			packB(bp, j.b, j.pc, j.jc+jr, kc, nr)
		} else if jr < j.full {
			bp, ldb = j.b.data[j.pc*j.b.rs+j.jc+jr:], j.b.rs
		} else if j.preB != nil {
			bp = j.preB.panelB(j.pc, kc, j.jc+jr)
		} else {
			bp = j.pb[(jr-j.full)*kc : (jr-j.full+nr)*kc]
		}
		cols := min(nr, j.nc-jr)
		for r := r0; r < r1; r++ {
			ir := r * mr
			ap := j.pa[ir*kc : ir*kc+mr*kc]
			ci := (j.ic+ir)*ldc + j.jc + jr
			rows := min(mr, j.mc-ir)
			if rows == mr && cols == nr {
				if fin.ok {
					running.finishTile(j.ep, fin, kc, ap, bp, ldb, j.c, ldc, j.ic+ir, j.jc+jr, j.acc)
					continue
				}
				microKernel(kc, ap, bp, ldb, j.c[ci:], ldc, j.acc)
				if byTile {
					j.ep.finish(j.c, ldc, j.ic+ir, j.ic+ir+rows, j.jc+jr, j.jc+jr+cols)
				}
				continue
			}
			if !running.edge(kc, ap, bp, ldb, edge[:], nr, rows, cols) {
				microKernel(kc, ap, bp, ldb, edge[:], nr, false)
			}
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
			if byTile {
				j.ep.finish(j.c, ldc, j.ic+ir, j.ic+ir+rows, j.jc+jr, j.jc+jr+cols)
			}
		}
	}
	if last && !byTile {
		c0, c1 := j.jc+q0*nr, j.jc+min(q1*nr, j.nc)
		j.ep.finish(j.c, j.ldc, j.ic+r0*mr, j.ic+min(r1*mr, j.mc), c0, c1)
	}
}

// packA copies A[i0:i0+mc][p0:p0+kc] into panels of mr rows: panel r holds,
// for each step p, the mr values A[i0+r*mr+i][p0+p] (zero past the last
// row).
func packA(dst []float32, a matrix, i0, p0, mc, kc int) {
	for ir := 0; ir < mc; ir += mr {
		panel := dst[ir*kc : ir*kc+mr*kc]
		rows := min(mr, mc-ir)
		if mr == 12 && rows == 12 && a.cs == 1 {
			packPanel12(panel, a, i0+ir, p0, kc)
			continue
		}
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
