package wgref

// partScratch is packing scratch for the parts of a run that each pack a
// whole product of their own (images of a convolution, matrices of a
// batched MatMul): part 0 packs in the planned scratch, part i > 0 in
// partScratch[i-1], a copy of its size that the pool keeps from call to
// call. It is allocated at the first run that needs it, not per call, and
// is not in the plan: with n threads a run holds n-1 more copies of its
// packing scratch.
var partScratch [][]float32

// growPartScratch makes partScratch hold copies of size floats for parts
// runs. The caller holds the pool.
func growPartScratch(parts, size int) {
	for len(partScratch) < parts-1 {
		partScratch = append(partScratch, nil)
	}
	for i := range partScratch[:parts-1] {
		if cap(partScratch[i]) < size {
			partScratch[i] = make([]float32, size)
		}
	}
}

// scratchOfPart is part i's copy of work (work itself for part 0).
func scratchOfPart(i int, work []float32) []float32 {
	if i == 0 {
		return work
	}
	return partScratch[i-1][:len(work)]
}

// wholeProducts reports whether count products, of flops each, are worth
// sharing whole among threads goroutines, and takes the pool if so:
// enough of them that each thread has as many as another, or nearly.
func wholeProducts(threads, count, flops int) bool {
	return count >= threads && (count%threads == 0 || count >= 4*threads) &&
		count*flops >= 2*minPartFlops && workers.take(threads)
}
