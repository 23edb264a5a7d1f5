package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Weights packed once. A GEMM whose weight operand is a param (a conv's
// filters, A; a MatMul's or Gemm's right-hand matrix, B) would otherwise
// pack it into the micro-kernel's panels on every call, and a conv for
// every image. Prepare packs it when the runner binds its params, in the
// very layout sgemm packs block by block, and the kernel then reads those
// panels (Call.Prepared). The packing depends on the weight and the
// blocking only (blockK deep, panels of mr rows or nr columns), never on
// the activation; what the activation decides (the few-row paths that
// pack nothing) is decided per call, and the packed panels then wait
// unused.

// preparers are the kernels that prepare their weights, by name.
var preparers = map[string]func(c *wgrt.Call) (*packedGEMM, error){}

func registerPrepare(name string, p func(c *wgrt.Call) (*packedGEMM, error)) { preparers[name] = p }

// Prepare is the reference kernels' wgrt.PrepareFunc: the weight of a
// Conv, MatMul or Gemm (fused or not) that is a param, packed into the
// running micro-kernel's panels; nil for other ops and for weights the
// kernel would not pack.
func Prepare(c *wgrt.Call) (any, int, error) {
	p := preparers[c.Kernel]
	if p == nil {
		return nil, 0, nil
	}
	pk, err := p(c)
	if err != nil || pk == nil {
		return nil, 0, err
	}
	pk.sources = make([]*byte, len(c.Inputs))
	for i, in := range c.Inputs {
		if len(in.Data) > 0 {
			pk.sources[i] = &in.Data[0]
		}
	}
	return pk, 4 * len(pk.data), nil
}

// packedGEMM is one GEMM operand packed for every block of sgemm, per
// group of a grouped convolution. A (m×k) is packed as sgemm's packA
// packs it: for each block of k from pc, kc deep, ceilTo(m, mr)·kc floats
// from pc·ceilTo(m, mr), its row block from ic at ic·kc in them. B (k×n)
// is packed as packB packs it: for each block of k, its column panels from
// column from on (0 for a strided B; the last, narrower than nr, for a
// row-major B, whose whole panels the micro-kernel reads in place), panel
// of column j at (j-from)·kc in the block's region, which starts at
// pc·ceilTo(n-from, nr). Groups lie groupFloats apart. Sizes are
// allocated at maxMR and maxNR, as the planner counts them
// (packedFloats), and used at the running path's mr and nr.
type packedGEMM struct {
	isA         bool
	mr, nr      int // the path's when packed: other paths pack per call
	m, n, k     int // the product's (per group): A m×k, B k×n
	from        int // B: the first column packed
	groupFloats int
	data        []float32
	// next is a bidirectional recurrent op's second direction's B, its
	// data the second half of data's (rnn_gemm.go's prepareRecurrent).
	next *packedGEMM
	// rows is a dilated conv's filters packed by kernel row, each row's
	// view of data (conv_rows.go); forA then serves no product.
	rows []kernelRow
	// mixLanes is, for a grouped conv's filters laid out for the mixed
	// blocks of that many channels (conv_mixed8.go), 8 or 16; data then
	// holds them and serves no product.
	mixLanes int
	// sources is where each input Prepare was given with its data
	// started (nil: given without): a call whose inputs there start
	// elsewhere (the wrong op's Prepared, or weights bound anew) is not
	// this one's, and packs its own.
	sources []*byte
}

// packedFloats is the floats Prepare allocates for one group's operand:
// A m×k, or B k×n whose columns from on are packed (from is n rounded
// down to maxNR for a row-major B, 0 for a strided one). Path-independent,
// as the planner's rule (refscratch.PackedBytes) is.
func packedFloats(isA bool, m, n, k int, rowMajorB bool) int {
	if isA {
		return ceilTo(m, maxMR) * k
	}
	if rowMajorB {
		if n%maxNR == 0 {
			return 0
		}
		return maxNR * k
	}
	return ceilTo(n, maxNR) * k
}

// packWeightA packs groups matrices of m×k, the g-th at a's data from
// g·groupStride, for sgemm's A.
func packWeightA(a matrix, groups, groupStride, m, k int) *packedGEMM {
	per := packedFloats(true, m, 0, k, false)
	pk := &packedGEMM{isA: true, mr: mr, nr: nr, m: m, k: k, groupFloats: per, data: make([]float32, groups*per)}
	rows := ceilTo(m, mr)
	for g := 0; g < groups; g++ {
		ga := matrix{data: a.data[g*groupStride:], rs: a.rs, cs: a.cs}
		for pc := 0; pc < k; pc += blockK {
			kc := min(blockK, k-pc)
			for ic := 0; ic < m; ic += blockM {
				packA(pk.data[g*per+pc*rows+ic*kc:], ga, ic, pc, min(blockM, m-ic), kc)
			}
		}
	}
	return pk
}

// packWeightB packs B (k×n) for sgemm: every panel of a strided B, the
// last (narrower than nr) of a row-major one; nil when the rule allocates
// nothing (a row-major B of whole panels on every path). On a path whose
// panels are narrower than maxNR, a row-major B may have none to pack in
// what the rule allocates: the memory is the rule's on every path, as
// the planner counts it.
func packWeightB(b matrix, n, k int) *packedGEMM {
	rowMajor := b.cs == 1
	from := 0
	if rowMajor {
		from = n / nr * nr
	}
	per := packedFloats(false, 0, n, k, rowMajor)
	if per == 0 {
		return nil
	}
	pk := &packedGEMM{nr: nr, mr: mr, n: n, k: k, from: from, groupFloats: per, data: make([]float32, per)}
	width := ceilTo(n-from, nr)
	for pc := 0; pc < k; pc += blockK {
		kc := min(blockK, k-pc)
		packB(pk.data[pc*width:], b, pc, from, kc, n-from)
	}
	return pk
}

// forA is pk when it holds A of m×k for the running path, else nil.
func (pk *packedGEMM) forA(m, k int) *packedGEMM {
	if pk == nil || !pk.isA || pk.rows != nil || pk.mr != mr || pk.m != m || pk.k != k {
		return nil
	}
	return pk
}

// forConv is pk when it holds a conv's filters (A of m×k, whole or by
// kernel row) for the running path, else nil.
func (pk *packedGEMM) forConv(m, k int) *packedGEMM {
	if pk == nil || pk.rows == nil {
		return pk.forA(m, k)
	}
	if pk.mr != mr || pk.m != m || pk.k != k {
		return nil
	}
	return pk
}

// forB is pk when it holds B of k×n, read as form, for the running path,
// else nil.
func (pk *packedGEMM) forB(n, k int, form bForm) *packedGEMM {
	if pk == nil || pk.isA || pk.nr != nr || pk.n != n || pk.k != k {
		return nil
	}
	if from := n / nr * nr; form == bRowMajor && pk.from != from || form == bStrided && pk.from != 0 || form == bIm2col {
		return nil
	}
	return pk
}

// blockA is the packed rows of group g's block from ic at depth pc.
func (pk *packedGEMM) blockA(g, pc, kc, ic int) []float32 {
	return pk.data[g*pk.groupFloats+pc*ceilTo(pk.m, pk.mr)+ic*kc:]
}

// panelB is the packed panel of columns from j at depth pc, kc deep.
func (pk *packedGEMM) panelB(pc, kc, j int) []float32 {
	o := pc*ceilTo(pk.n-pk.from, pk.nr) + (j-pk.from)*kc
	return pk.data[o : o+pk.nr*kc]
}

// preparedOf is c's prepared weight, or nil when it has none or what it
// has was prepared from other weights than c's.
func preparedOf(c *wgrt.Call) *packedGEMM {
	pk, _ := c.Prepared.(*packedGEMM)
	if pk == nil || len(pk.sources) < len(c.Inputs) {
		return nil
	}
	// A fused kernel's producer call has the first of its inputs.
	for i, in := range c.Inputs {
		if src := pk.sources[i]; src != nil && (len(in.Data) == 0 || &in.Data[0] != src) {
			return nil
		}
	}
	return pk
}

// weightOf is c's input i when it is a float32 param with its data,
// else ok is false.
func weightOf(c *wgrt.Call, i int) (wgrt.Tensor, bool) {
	if len(c.Inputs) <= i {
		return wgrt.Tensor{}, false
	}
	w := c.Inputs[i]
	return w, w.DType == wgrt.F32 && w.Data != nil && len(w.Shape) == len(w.Strides)
}

func init() {
	registerPrepare("Conv", prepareConv)
	registerPrepare("FusedConv", prepareConv)
	registerPrepare("Gemm", prepareGemm)
	registerPrepare("FusedGemm", prepareGemm)
	registerPrepare("MatMul", prepareMatMul)
	registerPrepare("FusedMatMul", prepareMatMul)
}

// prepareConv packs a conv's filters, per group, as the GEMM's A, where
// the conv takes the GEMM (ConvPacksFilters), or lays them out for the
// mixed blocks of a grouped conv (ConvMixedFloats).
func prepareConv(c *wgrt.Call) (*packedGEMM, error) {
	w, ok := weightOf(c, 1)
	if !ok || len(w.Shape) < 3 || !w.Contiguous() {
		return nil, nil
	}
	at := attrsOf(c)
	group := at.IntOr("group", 1)
	if at.err != nil {
		return nil, at.err
	}
	if group <= 0 || w.Shape[0]%group != 0 {
		return nil, fmt.Errorf("%s: weight %v and group %d do not fit", c.Kernel, w.Shape, group)
	}
	if ConvMixedFloats(w.Shape, group, withSum(c, len(w.Shape))) > 0 {
		return packMixedFilters(w, group), nil
	}
	if !ConvPacksFilters(c.Kernel, w.Shape, group, withSum(c, len(w.Shape)), pointwiseAttrs(c)) {
		return nil, nil
	}
	if len(w.Shape) == 4 && group == 1 {
		ca, err := readConvAttrs(c, 2)
		if err != nil {
			return nil, err
		}
		if splitsByKernelRows(ca, w.Shape) {
			return packKernelRows(w, ca), nil
		}
	}
	mg, kk := w.Shape[0]/group, w.Shape[1]*prod(w.Shape[2:])
	return packWeightA(matrix{data: elems[float32](w), rs: w.Strides[0], cs: 1}, group, mg*w.Strides[0], mg, kk), nil
}

// withSum reports whether a FusedConv's inputs include a sum (an input
// after the weight of the output's rank), which keeps it off the tap-row
// and mixed-block paths: FusedConvSum of what Prepare is given, where an
// input whose shape depends on a symbol comes without one.
func withSum(c *wgrt.Call, rank int) bool {
	ranks := make([]int, 0, len(c.Inputs))
	for _, t := range c.Inputs[min(2, len(c.Inputs)):] {
		r := len(t.Shape)
		if t.Shape == nil {
			r = -1 // not given: its shape depends on a symbol
		}
		ranks = append(ranks, r)
	}
	return FusedConvSum(c.Kernel, rank, ranks)
}

// FusedConvSum reports whether a conv kernel whose weight has rank
// dimensions and whose inputs after the weight have ranks (-1 for one
// whose shape is not constant) takes a sum, as Prepare decides it: a
// FusedConv whose third or fourth input has the output's rank, or has a
// shape that is not constant. Prepare is given no shape for an input
// whose shape depends on a symbol (wgrt.PrepareFunc), and a sum has the
// output's, batch and all, while the bias is [M], constant whenever the
// weight is: such an input is taken for a sum (at worst, for a bias of
// symbolic shape, the filters are packed for the GEMM, which a call that
// takes another path leaves unused). The planner's rule
// (refscratch.PackedBytes) asks it with the same view of the shapes, so
// that the two make one choice of the filters' layout.
func FusedConvSum(kernel string, rank int, ranks []int) bool {
	if kernel != "FusedConv" {
		return false
	}
	for _, r := range ranks {
		if r == rank || r < 0 {
			return true
		}
	}
	return false
}

// pointwiseAttrs reports whether a conv's attributes make it 1x1, of
// stride 1 and no padding (which, over spatially contiguous channels, is
// a plain product: few output channels then run unpacked).
func pointwiseAttrs(c *wgrt.Call) bool {
	at := attrsOf(c)
	all := func(xs []int, want int) bool {
		for _, x := range xs {
			if x != want {
				return false
			}
		}
		return xs != nil
	}
	return all(at.Ints("kernel_shape"), 1) && all(at.Ints("strides"), 1) && all(at.Ints("pads"), 0) && at.err == nil
}

// ConvPacksFilters reports whether a float32 conv of weight shape w and
// group packs its filters into the GEMM's panels (so Prepare packs them
// once): not when it runs as depthwise or grouped tap rows (1-D and 2-D,
// without a fused sum), nor when it is pointwise with so few output
// channels per group that the product runs row by row, unpacked. The
// planner's rule (refscratch.PackedBytes) asks it.
func ConvPacksFilters(kernel string, w []int, group int, sum, pointwise bool) bool {
	spatial := len(w) - 2
	mg, cg := w[0]/group, w[1]
	if !sum && spatial <= 2 {
		if cg == 1 { // depthwise (isDepthwise): one input channel per group
			return false
		}
		if group > 1 && mg <= groupedMaxOutputs && cg*prod(w[2:]) <= maxWindowTaps {
			return false
		}
	}
	return !(pointwise && mg <= gemvMaxRows)
}

// prepareGemm packs a Gemm's B (k×n, transposed when transB) where a
// product of more rows than gemvMaxRows would pack it.
func prepareGemm(c *wgrt.Call) (*packedGEMM, error) {
	b, ok := weightOf(c, 1)
	if !ok || len(b.Shape) != 2 {
		return nil, nil
	}
	at := attrsOf(c)
	transA, transB := at.IntOr("transA", 0) != 0, at.IntOr("transB", 0) != 0
	if at.err != nil {
		return nil, at.err
	}
	if a := c.Inputs[0]; len(a.Shape) == 2 {
		m := a.Shape[0]
		if transA {
			m = a.Shape[1]
		}
		if m <= gemvMaxRows {
			return nil, nil // row by row, B read in place
		}
	}
	bm := matrix{data: elems[float32](b), rs: b.Strides[0], cs: b.Strides[1]}
	k, n := b.Shape[0], b.Shape[1]
	if transB {
		bm.rs, bm.cs = bm.cs, bm.rs
		k, n = n, k
	}
	return packWeightB(bm, n, k), nil
}

// prepareMatMul packs a MatMul's B when it is one matrix (no batch, or a
// batch of 1), where A's rows, when known, are more than gemvMaxRows.
func prepareMatMul(c *wgrt.Call) (*packedGEMM, error) {
	b, ok := weightOf(c, 1)
	rb := len(b.Shape)
	if !ok || rb < 2 || prod(b.Shape[:rb-2]) != 1 {
		return nil, nil
	}
	if a := c.Inputs[0]; a.Shape != nil && (len(a.Shape) <= 1 || prod(a.Shape[:len(a.Shape)-1]) <= gemvMaxRows) {
		return nil, nil // row by row, B read in place
	}
	return packWeightB(matrix{data: elems[float32](b), rs: b.Strides[rb-2], cs: b.Strides[rb-1]}, b.Shape[rb-1], b.Shape[rb-2]), nil
}
