package cppref

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The float32 row functions (templates/wgref/vecmath*.cc) on each of
// their paths: the server run with WGREF_ISA=portable, avx2 and avx512
// (a path the CPU lacks falls back to the best one it has) against the Go
// kernels, on every length 1..67, 1000 and 4097, contiguous and strided,
// with special values (NaN, ±Inf, ±0, ±88.8, ±1e-30, denormals) among
// the random ones; and testdata/vecmath_check.cc, which runs the row
// functions themselves on each path, in place and not, at every
// alignment, and checks that nothing past a row is written.

// vecISAs are the WGREF_ISA values the tests run the C++ kernels with.
var vecISAs = []string{"portable", "avx2", "avx512"}

var vecSpecials = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
	88.8, -88.8, 88.7, -88.7, 1e-30, -1e-30, 1e-40, -1e-40, 1.4e-45, -1.4e-45, 0.625, -0.625, 4, -4, 100, -100, 1, -1, 3, -3, 6, -6}

// vecTensor is an f32 tensor of shape with specials among values in
// [-scale, scale]; strided: every dimension two floats apart.
func vecTensor(r *rand.Rand, strided bool, scale float64, shape ...int) wgrt.Tensor {
	t := newTensor(wgrt.F32, shape...)
	if strided {
		s := 1
		for i := len(shape) - 1; i >= 0; i-- {
			t.Strides[i] = 2 * s
			s *= 2 * max(shape[i], 1)
		}
		t.Data = make([]byte, 4*s)
	}
	for i := 0; i < len(t.Data)/4; i++ {
		v := float32((2*r.Float64() - 1) * scale)
		if r.Intn(5) == 0 {
			v = vecSpecials[r.Intn(len(vecSpecials))]
		}
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(v))
	}
	return t
}

// vecCompare runs call through Go and the server and compares the
// output: with exact the same bits (any NaN for a NaN), else within atol
// + rtol·|go|. It reports the first few differences.
func vecCompare(t *testing.T, srv *Server, name string, call *wgrt.Call, exact bool, rtol, atol float64) {
	t.Helper()
	goCall, cCall := *call, *call
	goCall.Outputs, cCall.Outputs = cloneOutputs(call.Outputs), cloneOutputs(call.Outputs)
	require.NoError(t, wgref.Call(&goCall), name)
	require.NoError(t, srv.Call(&cCall), name)
	g, c := goCall.Outputs[0], cCall.Outputs[0]
	in := call.Inputs[0]
	bad := 0
	for e := 0; e < g.NumElements(); e++ {
		off, xoff, rem := 0, 0, e
		for d := len(g.Shape) - 1; d >= 0; d-- {
			i := rem % g.Shape[d]
			rem /= g.Shape[d]
			off += i * g.Strides[d]
			if k := d - (len(g.Shape) - len(in.Shape)); k >= 0 && in.Shape[k] > 1 {
				xoff += i * in.Strides[k]
			}
		}
		gv, cv := elem(g, off), elem(c, off)
		ok := false
		switch {
		case math.IsNaN(gv):
			ok = math.IsNaN(cv)
		case exact:
			ok = math.Float64bits(gv) == math.Float64bits(cv)
		case gv == cv:
			ok = true
		default:
			ok = math.Abs(gv-cv) <= atol+rtol*math.Abs(gv)
		}
		if !ok {
			if bad < 5 {
				t.Errorf("%s: element %d (x %v): Go %v, C++ %v", name, e, elem(in, xoff), gv, cv)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements differ", name, bad)
	}
}

// vecLengths are the row lengths the tests take: every one up to 67
// (the vectors' and the strided chunks' edges), then two long ones.
func vecLengths() []int {
	var ns []int
	for n := 1; n <= 67; n++ {
		ns = append(ns, n)
	}
	return append(ns, 1000, 4097)
}

type vecUnary struct {
	kernel, name string
	attrs        []wgrt.Attr
	// tol: compared within rtol, atol even where the paths give Go's
	// bits (Go has no assembly for GELU's tanh form).
	tol bool
}

var vecUnaries = []vecUnary{
	{kernel: "Exp"}, {kernel: "Sigmoid"}, {kernel: "Tanh"}, {kernel: "Erf"}, {kernel: "Gelu"},
	{kernel: "Gelu", name: "GeluTanh", attrs: []wgrt.Attr{sattr("approximate", "tanh")}, tol: true},
	{kernel: "Relu"}, {kernel: "HardSwish"},
	{kernel: "HardSigmoid", attrs: []wgrt.Attr{fattr("alpha", 0.2), fattr("beta", 0.5)}},
	{kernel: "LeakyRelu", attrs: []wgrt.Attr{fattr("alpha", 0.01)}},
	{kernel: "Clip", attrs: []wgrt.Attr{fattr("min", -1.5), fattr("max", 6)}},
	{kernel: "Clip", name: "Relu6", attrs: []wgrt.Attr{fattr("min", 0), fattr("max", 6)}},
}

// vecExact says whether the C++ kernels on path should give the Go
// kernels' bits: Go's row kernels are AVX2+FMA assembly on amd64 CPUs
// that have both, and the C++ vector paths (NEON's too) compute the same
// instructions.
func vecExact(path string) bool {
	switch path {
	case "avx2", "avx512":
		return runtime.GOARCH == "amd64" // the C++ path says the CPU has them
	case "neon": // an arm64 build run by an emulator on this machine
		return runtime.GOARCH == "amd64" && cpuHasAVX2FMA()
	}
	return false
}

// cpuHasAVX2FMA reads the CPU's flags (Linux); false where it cannot.
func cpuHasAVX2FMA() bool {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(info), "\n") {
		if name, flags, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			f := " " + flags + " "
			return strings.Contains(f, " avx2 ") && strings.Contains(f, " fma ")
		}
	}
	return false
}

func TestVecmathPathsMatchGo(t *testing.T) {
	check := buildVecCheck(t)
	for _, isa := range vecISAs {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			path := runVecCheck(t, check)
			exact := vecExact(path)
			t.Logf("WGREF_ISA=%s: the C++ kernels take %s; Go's bits expected: %v", isa, path, exact)
			srv := startServer(t)
			r := rand.New(rand.NewSource(3))
			// Where the paths are not Go's instructions: the portable
			// forms round each product where the assembly fuses, a few
			// ulps; GELU's 1 + erf(x/√2) cancels for x below -4, where
			// an ulp of erf is |x|·6e-8.
			const rtol, atol = 1e-5, 1e-6
			for _, u := range vecUnaries {
				name := u.name
				if name == "" {
					name = u.kernel
				}
				for _, n := range vecLengths() {
					for _, strided := range []bool{false, true} {
						if strided && n > 70 && n != 1000 {
							continue
						}
						x := vecTensor(r, strided, 12, n)
						call := &wgrt.Call{Kernel: u.kernel, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, n)}, Inputs: []wgrt.Tensor{x}, Attrs: u.attrs}
						what := fmt.Sprintf("%s %s n=%d strided=%v", isa, name, n, strided)
						if u.kernel == "Gelu" && !exact {
							vecCompare(t, srv, what, call, false, rtol, 1e-7*100)
							continue
						}
						vecCompare(t, srv, what, call, exact && !u.tol, rtol, atol)
					}
				}
			}
			// Two operands: rows of both, a row and a scalar either way,
			// a bias row over rows, a column over columns.
			for _, k := range []string{"Add", "Sub", "Mul", "Div"} {
				for _, n := range vecLengths() {
					shapes := [][2][]int{{{n}, {n}}, {{n}, {1}}, {{1}, {n}}, {{3, n}, {n}}, {{n, 1}, {n, 3}}}
					for _, sh := range shapes {
						a, b := vecTensor(r, false, 12, sh[0]...), vecTensor(r, false, 12, sh[1]...)
						out := []int{max(sh[0][0], sh[1][0])}
						if len(sh[0]) == 2 || len(sh[1]) == 2 {
							out = []int{3, n}
							if sh[1][len(sh[1])-1] == 3 {
								out = []int{n, 3}
							}
						}
						call := &wgrt.Call{Kernel: k, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, out...)}, Inputs: []wgrt.Tensor{a, b}}
						vecCompare(t, srv, fmt.Sprintf("%s %s %v %v", isa, k, sh[0], sh[1]), call, true, 0, 0)
					}
				}
			}
		})
	}
}

// TestVecmathRowsInPlace runs testdata/vecmath_check.cc on each path.
func TestVecmathRowsInPlace(t *testing.T) {
	check := buildVecCheck(t)
	for _, isa := range vecISAs {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			path := runVecCheck(t, check)
			t.Logf("WGREF_ISA=%s: %s", isa, path)
		})
	}
}

var vecCheck struct {
	once sync.Once
	bin  string
	err  error
}

// buildVecCheck compiles testdata/vecmath_check.cc with the row functions'
// sources (the compiler and flags of OptionsFromEnv), once per test run,
// into the cache directory Build uses, under a hash of all it reads.
func buildVecCheck(t *testing.T) string {
	t.Helper()
	testenv.SkipUnlessLong(t, "it builds C++")
	vecCheck.once.Do(func() {
		vecCheck.bin, vecCheck.err = compileCheck("vecmath_check", []string{"isa.h", "isa.cc", "vecmath.h", "vecmath.cc", "vecmath_avx2.cc", "vecmath_avx512.cc", "vecmath_neon.cc"})
	})
	require.NoError(t, vecCheck.err)
	return vecCheck.bin
}

// runVecCheck runs the check program (through OptionsFromEnv's Exec)
// with the environment as it is, requires it to pass, and returns the
// path it reports.
func runVecCheck(t *testing.T, bin string) string {
	t.Helper()
	args := append(append([]string{}, OptionsFromEnv().Exec...), bin)
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "vecmath_check:\n%s", out)
	first, _, _ := strings.Cut(string(out), "\n")
	path, ok := strings.CutPrefix(first, "isa ")
	require.True(t, ok, "vecmath_check:\n%s", out)
	return path
}
