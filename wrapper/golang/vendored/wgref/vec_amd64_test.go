package wgref

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// vecLengths are the row lengths the assembly is held to the Go forms on:
// every length around its 8- and 32-float blocks, and long rows.
func vecLengths() []int {
	var ns []int
	for n := 0; n <= 67; n++ {
		ns = append(ns, n)
	}
	return append(ns, 1000, 4099)
}

// vecInputs is n floats from offset off of a fresh slice (so rows start
// unaligned), random over [-scale, scale] with the edges mixed in.
func vecInputs(r *rand.Rand, n, off int, scale float32) []float32 {
	edges := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.SmallestNonzeroFloat32, -1e-40, 1e-30, 88.7, 89, -87.5, -103, -110, 1e30, -1e30, 0.625, -0.625, 4, -4}
	xs := make([]float32, n+off)[off:]
	for i := range xs {
		if r.Intn(8) == 0 {
			xs[i] = edges[r.Intn(len(edges))]
		} else {
			xs[i] = (r.Float32()*2 - 1) * scale
		}
	}
	return xs
}

// The assembly row functions give what their Go forms give, to a few ulps
// (the assembly fuses multiply-adds; both are held to float64's functions
// in TestFloat32FunctionsMatchFloat64), on every length, on unaligned rows
// and in place.
func TestUnaryAssemblyMatchesGo(t *testing.T) {
	if !vecAVX2 {
		t.Skip("no AVX2 and FMA")
	}
	r := rand.New(rand.NewSource(8))
	for _, u := range []unaryF32{{kind: unaryRelu}, {kind: unaryExp}, {kind: unarySigmoid}, {kind: unaryTanh}, {kind: unaryErf},
		{kind: unaryGeluErf}, {kind: unaryClip, a: 0, b: 6}, {kind: unaryClip, a: -0.5, b: 0.25}, {kind: unaryLeakyRelu, a: 0.01},
		{kind: unaryHardSigmoid, a: 0.2, b: 0.5}, {kind: unaryHardSwish}} {
		kind := u.kind
		for _, n := range vecLengths() {
			for off := 0; off < 4; off++ {
				src := vecInputs(r, n, off, 12)
				want := make([]float32, n)
				u.rowGo(want, src)
				got := make([]float32, n+off)[off:]
				u.row(got, src)
				inPlace := append(make([]float32, 0, n+3), src...)
				u.row(inPlace, inPlace)
				for i := range want {
					for _, g := range []float32{got[i], inPlace[i]} {
						if !closeULPs(g, want[i], src[i], kind) {
							t.Fatalf("kind %d, n %d, offset %d, x %g: assembly %g, Go %g", kind, n, off, src[i], g, want[i])
						}
					}
				}
			}
		}
	}
}

// closeULPs: within 2 ulps (8 for erf's rational function, whose terms
// round differently fused), or in GELU's cancelling tail within erf's
// 8 ulps near -1 times x/2: 2.5e-7·|x|.
func closeULPs(got, want, x float32, kind unaryKind) bool {
	bound := 2.0
	if kind == unaryErf || kind == unaryGeluErf {
		bound = 8
	}
	if ulps(got, float64(want)) <= bound {
		return true
	}
	return math.Abs(float64(got)-float64(want)) <= 2.5e-7*math.Abs(float64(x))
}

// The assembly arithmetic gives exactly what the Go loops give.
func TestBinaryAssemblyMatchesGo(t *testing.T) {
	if !vecAVX2 {
		t.Skip("no AVX2 and FMA")
	}
	r := rand.New(rand.NewSource(9))
	vv := []binaryKind{binaryAdd, binarySub, binaryMul, binaryDiv}
	vs := []binaryKind{binaryAdd, binarySub, binaryMul, binaryDiv, binaryRSub, binaryRDiv, binaryPRelu}
	same := func(a, b float32) bool {
		return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
	}
	for _, n := range vecLengths() {
		for off := 0; off < 4; off++ {
			a, b := vecInputs(r, n, off, 5), vecInputs(r, n, 3-off, 5)
			s := (r.Float32()*2 - 1) * 5
			for _, k := range vv {
				want := make([]float32, n)
				binaryVVGo(k, want, a, b)
				got := make([]float32, n+off)[off:]
				binaryVV(k, got, a, b)
				inA := append([]float32(nil), a...)
				binaryVV(k, inA, inA, b)
				inB := append([]float32(nil), b...)
				binaryVV(k, inB, a, inB)
				for i := range want {
					if !same(got[i], want[i]) || !same(inA[i], want[i]) || !same(inB[i], want[i]) {
						t.Fatalf("kind %d, n %d, offset %d, element %d: assembly %g (in place %g, %g), Go %g", k, n, off, i, got[i], inA[i], inB[i], want[i])
					}
				}
			}
			for _, k := range vs {
				want := make([]float32, n)
				binaryVSGo(k, want, a, s)
				got := make([]float32, n+off)[off:]
				binaryVS(k, got, a, s)
				inA := append([]float32(nil), a...)
				binaryVS(k, inA, inA, s)
				for i := range want {
					if !same(got[i], want[i]) || !same(inA[i], want[i]) {
						t.Fatalf("kind %d scalar, n %d, offset %d, element %d: assembly %g (in place %g), Go %g", k, n, off, i, got[i], inA[i], want[i])
					}
				}
			}
		}
	}
}

// Without AVX2 (older CPUs; other architectures build vec_generic.go) the
// kernels take the Go forms: they pass the same checks against plain
// loops and float64.
func TestKernelsWithoutAssembly(t *testing.T) {
	defer func(had bool) { vecAVX2 = had }(vecAVX2)
	vecAVX2 = false
	TestBinaryFloat32RowsMatchNaiveLoop(t)
	TestUnaryFloat32RowsMatchNaiveLoop(t)
	TestFloat32FunctionsMatchFloat64(t)
	TestFloat32RowsInPlace(t)
	TestSoftmaxRowsMatchNaiveLoop(t)
	TestLayerNormRowsMatchNaiveLoop(t)
	TestFloat32RowsAllocateNothing(t)
}

// SiLU in one pass (siluRow) gives the bits of the Sigmoid pass times x,
// on every length, in place.
func TestSiLURowIsSigmoidTimesX(t *testing.T) {
	if !vecAVX2 {
		t.Skip("no AVX2 and FMA")
	}
	r := rand.New(rand.NewSource(9))
	for _, n := range vecLengths() {
		src := vecInputs(r, n, 0, 12)
		want := make([]float32, n)
		unaryF32{kind: unarySigmoid}.row(want, src)
		binaryVV(binaryMul, want, want, src)
		got := append([]float32(nil), src...)
		require.True(t, siluRow(got))
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n %d, x %g: one pass %g, two passes %g", n, src[i], got[i], want[i])
			}
		}
	}
}
