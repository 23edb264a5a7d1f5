package wgref

// splitOnce shares a product among the threads once, each thread running
// every block of depth for its own rows or columns with its own part of
// the packing scratch, where the block-by-block split waits for the
// slowest thread at every block (a 512×256×1024 product: 1.2× faster on
// two threads that way, 1.65× split once). It applies when each thread
// gets two panels or more and its packing has room of its own: columns
// when A's panels are packed once (Prepare: convolution filters), each
// part packing its columns of B; rows when B needs no packing (read in
// place in whole panels, or packed once), each part packing its rows of
// A. It reports whether it ran the product.
func (j *gemmJob) splitOnce() bool {
	if 2*j.m*j.n*j.k < 2*workers.limit*minPartFlops {
		return false
	}
	kc := min(j.k, blockK)
	if j.preA != nil && panelsOf(j.n, nr) >= 2*workers.limit {
		j.once = blockN
		if !j.direct {
			j.once = len(j.pb) / kc / workers.limit / nr * nr
		}
		if j.once < nr {
			return false
		}
		j.step = stepColsOnce
		workers.run(&pooledJob, workers.limit)
		return true
	}
	wholeB := j.preB != nil || j.direct && j.n%nr == 0
	if wholeB && j.preA == nil && panelsOf(j.m, mr) >= 2*workers.limit {
		j.once = len(j.pa) / kc / workers.limit / mr * mr
		if j.once < mr {
			return false
		}
		j.step = stepRowsOnce
		workers.run(&pooledJob, workers.limit)
		return true
	}
	return false
}

// rowsOnce is part i of a split by rows: the product over its share of
// A's row panels, chunk by chunk of once rows, packed in its own part
// of pa.
func (j *gemmJob) rowsOnce(i int) {
	p := *j
	kc0 := min(j.k, blockK)
	p.pa = j.pa[i*j.once*kc0 : (i+1)*j.once*kc0]
	r0, r1 := share(i, workers.limit, panelsOf(j.m, mr))
	end := min(r1*mr, j.m)
	for i0 := r0 * mr; i0 < end; i0 += j.once {
		p.ic, p.mc = i0, min(j.once, end-i0)
		rows := panelsOf(p.mc, mr)
		for jc := 0; jc < j.n; jc += blockN {
			p.jc, p.nc = jc, min(blockN, j.n-jc)
			p.full = 0
			if j.direct {
				p.full = p.nc / nr * nr
			}
			for pc := 0; pc < j.k; pc += blockK {
				p.pc, p.kc, p.acc = pc, min(blockK, j.k-pc), j.accumulate || pc > 0
				p.packRows(0, rows)
				p.tiles(0, panelsOf(p.nc, nr), 0, rows)
			}
		}
	}
}

// colsOnce is part i of a split by columns: the product over its share
// of B's column panels, chunk by chunk of once columns, packed in its own
// part of pb (B read in place packs only its last, narrow panel, which
// one part alone has, at pb's start).
func (j *gemmJob) colsOnce(i int) {
	p := *j
	kc0 := min(j.k, blockK)
	if !j.direct {
		p.pb = j.pb[i*j.once*kc0 : (i+1)*j.once*kc0]
	}
	q0, q1 := share(i, workers.limit, panelsOf(j.n, nr))
	end := min(q1*nr, j.n)
	for c0 := q0 * nr; c0 < end; c0 += j.once {
		p.jc, p.nc = c0, min(j.once, end-c0)
		cols := panelsOf(p.nc, nr)
		p.full = 0
		if j.direct {
			p.full = p.nc / nr * nr
		}
		for pc := 0; pc < j.k; pc += blockK {
			p.pc, p.kc, p.acc = pc, min(blockK, j.k-pc), j.accumulate || pc > 0
			p.packPanels(0, cols)
			for ic := 0; ic < j.m; ic += blockM {
				p.ic, p.mc = ic, min(blockM, j.m-ic)
				p.pa = j.preA.blockA(j.preGroup, pc, p.kc, ic)
				p.tiles(0, cols, 0, panelsOf(p.mc, mr))
			}
		}
	}
}
