package wgref

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// convImages is a convolution whose images are shared among the threads,
// each image convolved whole by one of them: no hand-off inside an image,
// where splitting each product waits at every block of it. Each part
// packs in its own scratch (partScratch).
type convImages struct {
	x, w, out wgrt.Tensor
	ca        convAttrs
	pk        *packedGEMM
	bias      wgrt.Tensor // copies of what convF32 points at, so that
	ep        epilogue    // the caller's values never escape to the heap
	hasBias   bool
	hasEp     bool
	work      []float32
	parts     int
}

var pooledConvImages convImages

// runConvImages runs convF32's call over its images, in one part per
// thread the pool's holder may use. The caller holds the pool.
func runConvImages(x, w wgrt.Tensor, bias *wgrt.Tensor, out wgrt.Tensor, ca convAttrs, work []float32, ep *epilogue, pk *packedGEMM) {
	t := &pooledConvImages
	*t = convImages{x: x, w: w, out: out, ca: ca, pk: pk, work: work, parts: workers.limit, hasBias: bias != nil, hasEp: ep != nil}
	if bias != nil {
		t.bias = *bias
	}
	if ep != nil {
		t.ep = *ep
	}
	growPartScratch(t.parts, len(work))
	workers.run(t, t.parts)
	*t = convImages{}
}

func (t *convImages) runPart(i int) {
	work := scratchOfPart(i, t.work)
	var bias *wgrt.Tensor
	if t.hasBias {
		bias = &t.bias
	}
	var ep *epilogue
	if t.hasEp {
		ep = &t.ep
	}
	from, to := share(i, t.parts, t.x.Shape[0])
	for b := from; b < to; b++ {
		convImage(b, t.x, t.w, bias, t.out, t.ca, work, ep, t.pk, 1)
	}
}
