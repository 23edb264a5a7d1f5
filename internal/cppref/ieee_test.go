package cppref

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// PyTorch's IEEE behaviour in the C++ kernels, as the Go ones have it:
// Relu, ThresholdedRelu and Shrink keep a NaN and give +0 for -0 (Shrink
// x·0 in its zero branch), on every vector path and its tail; the fused
// kernels' Relu epilogue keeps a NaN too; a FusedGemm with a small alpha
// and a large residual stays finite (no block started as sum / alpha).

// ieeeSpecials are the values each input cycles through.
var ieeeSpecials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 0.5, -0.5, 1, -1, 1e-40}

// ieeeSizes are odd sizes around the vectors of 4, 8 and 16 floats.
var ieeeSizes = []int{1, 7, 17, 33, 65}

// ieeeTensor is a row-major f32 (or f64) tensor whose every other element,
// from offset off, is a special value, the others random in [-2, 2).
func ieeeTensor(r *rand.Rand, dt wgrt.DType, off int, shape ...int) wgrt.Tensor {
	t := newTensor(dt, shape...)
	for i := 0; i < t.NumElements(); i++ {
		v := float64(r.Float32()*4 - 2)
		if (i+off)%2 == 0 {
			v = ieeeSpecials[(i+off)/2%len(ieeeSpecials)]
		}
		gemmPut(t, i, v)
	}
	return t
}

// compareIEEE runs call through Go's kernels and the server, and requires
// a NaN where Go has one, Go's infinities, zeros of Go's sign, and other
// values within atol + rtol·|go| (0, 0: the same bits but NaN payloads).
// The call's outputs are row-major.
func compareIEEE(t *testing.T, srv *Server, call *wgrt.Call, rtol, atol float64) {
	t.Helper()
	goCall, cCall := *call, *call
	goCall.Outputs, cCall.Outputs = cloneOutputs(call.Outputs), cloneOutputs(call.Outputs)
	require.NoError(t, wgref.Call(&goCall), call.Kernel)
	require.NoError(t, srv.Call(&cCall), call.Kernel)
	g, c := goCall.Outputs[0], cCall.Outputs[0]
	for e := 0; e < g.NumElements(); e++ {
		gv, cv := elem(g, e), elem(c, e)
		switch {
		case math.IsNaN(gv):
			require.True(t, math.IsNaN(cv), "%s at %d: Go NaN, C++ %v", call.Kernel, e, cv)
		case math.IsInf(gv, 0):
			require.Equal(t, gv, cv, "%s at %d", call.Kernel, e)
		case gv == 0 && cv == 0:
			require.Equal(t, math.Signbit(gv), math.Signbit(cv), "%s at %d: Go %v, C++ %v (the sign of zero)", call.Kernel, e,
				math.Copysign(0, gv), math.Copysign(0, cv))
		default:
			require.LessOrEqual(t, math.Abs(gv-cv), atol+rtol*math.Abs(gv), "%s at %d: Go %v, C++ %v", call.Kernel, e, gv, cv)
		}
	}
}

func ieeeFloatAttr(name string, v float64) wgrt.Attr { return gemmFloatAttr(name, v) }

func TestIeeeUnaryMatchesGo(t *testing.T) {
	type unaryCase struct {
		kernel string
		dt     wgrt.DType
		attrs  []wgrt.Attr
	}
	cases := []unaryCase{
		{"Relu", wgrt.F32, nil},
		{"Relu", wgrt.F64, nil},
		{"ThresholdedRelu", wgrt.F32, []wgrt.Attr{ieeeFloatAttr("alpha", 0.5)}},
		{"ThresholdedRelu", wgrt.F32, []wgrt.Attr{ieeeFloatAttr("alpha", 0)}}, // -0 <= 0: +0
		{"ThresholdedRelu", wgrt.F64, []wgrt.Attr{ieeeFloatAttr("alpha", -1)}},
		{"Shrink", wgrt.F32, []wgrt.Attr{ieeeFloatAttr("bias", 0.5), ieeeFloatAttr("lambd", 0.5)}},
		{"Shrink", wgrt.F32, []wgrt.Attr{ieeeFloatAttr("bias", 0), ieeeFloatAttr("lambd", 1)}}, // -0.5·0 is -0
		{"Shrink", wgrt.F64, []wgrt.Attr{ieeeFloatAttr("bias", 0.25), ieeeFloatAttr("lambd", 1)}},
	}
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(52))
			for _, uc := range cases {
				for _, n := range ieeeSizes {
					for off := 0; off < 2*len(ieeeSpecials); off++ {
						x := ieeeTensor(r, uc.dt, off, n)
						call := &wgrt.Call{Kernel: uc.kernel, Outputs: []wgrt.Tensor{newTensor(uc.dt, n)}, Inputs: []wgrt.Tensor{x},
							Attrs: uc.attrs}
						compareIEEE(t, srv, call, 0, 0)
					}
				}
			}
		})
	}
}

func TestIeeeFusedReluMatchesGo(t *testing.T) {
	relu := fusedActAttrs("Relu", 0, 0)
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(53))
			for _, m := range []int{1, 7, 17, 33} {
				for _, n := range []int{1, 7, 17, 33} {
					for _, k := range []int{1, 7, 33} {
						off := r.Intn(len(ieeeSpecials))
						a, bias, sum := ieeeTensor(r, wgrt.F32, off, m, k), ieeeTensor(r, wgrt.F32, off+1, n), ieeeTensor(r, wgrt.F32, off+2, m, n)
						b := randomOfDType(r, wgrt.F32, k, n)
						what := fmt.Sprintf("%dx%dx%d", m, n, k)
						for _, ins := range [][]wgrt.Tensor{{a, b}, {a, b, bias}, {a, b, bias, sum}} {
							call := &wgrt.Call{Kernel: "FusedMatMul", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)}, Inputs: ins,
								Attrs: relu, Threads: 1 + r.Intn(2)}
							t.Run("FusedMatMul/"+what, func(t *testing.T) { compareIEEE(t, srv, call, 1e-4, 1e-4) })
						}
						for _, ab := range [][2]float64{{1, 1}, {0.5, 2}, {-3, 1}} {
							for _, transB := range []int{0, 1} {
								bt := b
								if transB == 1 {
									bt = randomOfDType(r, wgrt.F32, n, k)
								}
								attrs := append([]wgrt.Attr{gemmFloatAttr("alpha", ab[0]), gemmFloatAttr("beta", ab[1]), gemmIntAttr("transA", 0),
									gemmIntAttr("transB", transB)}, relu...)
								call := &wgrt.Call{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, m, n)},
									Inputs: []wgrt.Tensor{a, bt, bias, sum}, Attrs: attrs, Threads: 1 + r.Intn(2)}
								t.Run(fmt.Sprintf("FusedGemm/%s/alpha%g/transB%d", what, ab[0], transB), func(t *testing.T) {
									compareIEEE(t, srv, call, 1e-4, 1e-4)
								})
							}
						}
					}
				}
			}
			type convCase struct {
				x, w               []int
				group, pad, kernel int
			}
			for _, cc := range []convCase{
				{x: []int{1, 3, 7, 7}, w: []int{5, 3, 3, 3}, group: 1, pad: 1, kernel: 3},
				{x: []int{2, 4, 1, 17}, w: []int{7, 4, 1, 1}, group: 1, pad: 0, kernel: 1}, // 1x1: products into the sum
				{x: []int{1, 2, 33, 1}, w: []int{3, 2, 3, 3}, group: 1, pad: 1, kernel: 3},
				{x: []int{1, 6, 7, 9}, w: []int{6, 1, 3, 3}, group: 6, pad: 1, kernel: 3}, // depthwise
				{x: []int{1, 3, 1, 1}, w: []int{17, 3, 1, 1}, group: 1, pad: 0, kernel: 1},
			} {
				oh, ow := cc.x[2]+2*cc.pad-cc.kernel+1, cc.x[3]+2*cc.pad-cc.kernel+1
				shape := []int{cc.x[0], cc.w[0], oh, ow}
				attrs := append([]wgrt.Attr{fusedIntsAttr("kernel_shape", cc.kernel, cc.kernel), fusedIntsAttr("strides", 1, 1),
					fusedIntsAttr("pads", cc.pad, cc.pad, cc.pad, cc.pad), fusedIntsAttr("dilations", 1, 1), gemmIntAttr("group", cc.group)}, relu...)
				for off := 0; off < 3; off++ {
					x, bias, sum := ieeeTensor(r, wgrt.F32, off, cc.x...), ieeeTensor(r, wgrt.F32, off+1, cc.w[0]), ieeeTensor(r, wgrt.F32, off+2, shape...)
					w := randomOfDType(r, wgrt.F32, cc.w...)
					for _, ins := range [][]wgrt.Tensor{{x, w}, {x, w, bias}, {x, w, sum}, {x, w, bias, sum}} {
						call := &wgrt.Call{Kernel: "FusedConv", Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...)}, Inputs: ins, Attrs: attrs,
							Threads: 1 + r.Intn(2)}
						t.Run(fmt.Sprintf("FusedConv/%v/%v/%d", cc.x, cc.w, len(ins)), func(t *testing.T) { compareIEEE(t, srv, call, 1e-4, 1e-4) })
					}
				}
			}
		})
	}
}

// ieeeCheckSource is a program over the C++ kernels themselves (the
// server cannot hand a kernel an output in an input's memory): it reads
// m, n, k, alpha and beta, then A [m, k], B [k, n], C [n], a sum [m, n]
// and a C2 [m, n] (float32), and writes FusedGemm(A, B, C, sum) with a
// Relu three ways: apart, in the sum's memory, and (no sum) in C2's.
const ieeeCheckSource = `// FusedGemm in place (internal/cppref/ieee_test.go).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "wgref/wgref.h"

namespace {

wrapgen::Tensor Mat(std::vector<float>* v, int64_t rows, int64_t cols) {
  wrapgen::Tensor t;
  t.dtype = wrapgen::DType::kF32;
  t.rank = cols < 0 ? 1 : 2;
  t.shape[0] = rows;
  t.strides[0] = cols < 0 ? 1 : cols;
  if (cols >= 0) {
    t.shape[1] = cols;
    t.strides[1] = 1;
  }
  t.data = reinterpret_cast<uint8_t*>(v->data());
  t.bytes = static_cast<int64_t>(4 * v->size());
  return t;
}

bool ReadAll(void* p, size_t n) { return std::fread(p, 1, n, stdin) == n; }

}  // namespace

int main() {
  int32_t d[3];
  float ab[2];
  if (!ReadAll(d, sizeof d) || !ReadAll(ab, sizeof ab)) return 2;
  const int64_t m = d[0], n = d[1], k = d[2];
  std::vector<float> a(m * k), b(k * n), c(n), sum(m * n), c2(m * n);
  for (std::vector<float>* v : {&a, &b, &c, &sum, &c2}) {
    if (!ReadAll(v->data(), 4 * v->size())) return 2;
  }
  wgref::Attr attrs[7];
  const char* fnames[] = {"alpha", "beta", "activation_alpha", "activation_beta"};
  const double fvals[] = {ab[0], ab[1], 0, 0};
  for (int i = 0; i < 4; i++) {
    attrs[i].name = fnames[i];
    attrs[i].kind = wrapgen::AttrKind::kFloat;
    attrs[i].f = fvals[i];
  }
  attrs[4].name = "transA";
  attrs[5].name = "transB";
  attrs[6].name = "activation";
  attrs[6].kind = wrapgen::AttrKind::kString;
  attrs[6].s = "Relu";
  std::vector<float> apart(m * n), in_sum = sum, in_c2 = c2;
  const wrapgen::Tensor ta = Mat(&a, m, k), tb = Mat(&b, k, n), tc = Mat(&c, n, -1), ts = Mat(&sum, m, n);
  const wrapgen::Tensor outs[3] = {Mat(&apart, m, n), Mat(&in_sum, m, n), Mat(&in_c2, m, n)};
  const wrapgen::Tensor ins[3][4] = {{ta, tb, tc, ts}, {ta, tb, tc, outs[1]}, {ta, tb, outs[2], outs[2]}};
  const int nins[3] = {4, 4, 3};
  for (int i = 0; i < 3; i++) {
    wgref::Call call;
    call.kernel = "FusedGemm";
    call.outputs = &outs[i];
    call.num_outputs = 1;
    call.inputs = ins[i];
    call.num_inputs = nins[i];
    call.attrs = attrs;
    call.num_attrs = 7;
    call.threads = 1 + i % 2;
    const wrapgen::Status st = wgref::Run(call);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 1;
    }
  }
  for (std::vector<float>* v : {&apart, &in_sum, &in_c2}) std::fwrite(v->data(), 4, v->size(), stdout);
  return 0;
}
`

var ieeeCheck struct {
	once sync.Once
	bin  string
	err  error
}

// buildIeeeCheck links ieeeCheckSource with the kernels (the objects
// Build compiles, from its object cache), once per test run.
func buildIeeeCheck(t *testing.T) string {
	t.Helper()
	testenv.SkipUnlessLong(t, "it builds the C++ kernels")
	ieeeCheck.once.Do(func() { ieeeCheck.bin, ieeeCheck.err = compileIeeeCheck(t.TempDir()) })
	require.NoError(t, ieeeCheck.err)
	return ieeeCheck.bin
}

func compileIeeeCheck(work string) (string, error) {
	opts := OptionsFromEnv()
	cxx := opts.CXX
	if cxx == "" {
		cxx = os.Getenv("CXX")
	}
	if cxx == "" {
		cxx = "g++"
	}
	files, err := Sources()
	if err != nil {
		return "", err
	}
	delete(files, "serve.cc")
	delete(files, "allocs.cc")
	files["ieee_check.cc"] = []byte(ieeeCheckSource)
	var sources []string
	for name, data := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return "", err
		}
		if strings.HasSuffix(name, ".cc") {
			sources = append(sources, name)
		}
	}
	flags := append([]string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"}, opts.Flags...)
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	objCache := filepath.Join(base, "wrapgen-cppref", "objects")
	if err := os.MkdirAll(objCache, 0o755); err != nil {
		return "", err
	}
	compiler := sha256.Sum256([]byte(fmt.Sprintf("%s %q\n", cxx, flags))) // as Build's, so its objects serve
	objects, err := compileAll(compileJob{cxx: cxx, flags: flags, dir: work, cache: objCache, compiler: compiler[:], files: files}, sources, false)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(work, "ieee_check")
	link := exec.Command(cxx, append(append(append([]string{}, flags...), "-o", bin), objects...)...)
	link.Dir = work
	if out, err := link.CombinedOutput(); err != nil {
		return "", fmt.Errorf("linking: %v\n%s", err, out)
	}
	return bin, nil
}

// TestIeeeFusedGemmSmallAlpha: alpha 1e-30 with a residual of 1e30
// entries is finite and Go's, apart and in the output's memory (the sum's,
// or a C of the output's shape), at sizes that take the in-place path's
// blocks of rows and of columns; in place the same bits as apart.
func TestIeeeFusedGemmSmallAlpha(t *testing.T) {
	bin := buildIeeeCheck(t)
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			r := rand.New(rand.NewSource(54))
			for _, size := range [][3]int{{7, 19, 20}, {1, 33, 7}, {164, 100, 33}, {2, 1500, 17}, {33, 1100, 300}} {
				m, n, k := size[0], size[1], size[2]
				const alpha, beta = 1e-30, 2
				a, b, c := randomF32(r, m, k), randomF32(r, k, n), randomF32(r, n)
				sum, c2 := randomF32(r, m, n), randomF32(r, m, n)
				for i := 0; i < m*n; i++ {
					gemmPut(sum, i, 1e30*elem(sum, i))
					gemmPut(c2, i, 1e30*elem(c2, i))
				}
				var in bytes.Buffer
				_ = binary.Write(&in, binary.LittleEndian, []int32{int32(m), int32(n), int32(k)})
				_ = binary.Write(&in, binary.LittleEndian, []float32{alpha, beta})
				for _, x := range []wgrt.Tensor{a, b, c, sum, c2} {
					in.Write(x.Data)
				}
				args := append(append([]string{}, OptionsFromEnv().Exec...), bin) // qemu for a cross-built one
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Env = append(os.Environ(), "WGREF_ISA="+isa)
				cmd.Stdin = &in
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				got, err := cmd.Output()
				require.NoError(t, err, stderr.String())
				require.Len(t, got, 3*4*m*n)
				// Go's three calls.
				attrs := append([]wgrt.Attr{gemmFloatAttr("alpha", alpha), gemmFloatAttr("beta", beta), gemmIntAttr("transA", 0),
					gemmIntAttr("transB", 0)}, fusedActAttrs("Relu", 0, 0)...)
				apart := newTensor(wgrt.F32, m, n)
				inSum := sum
				inSum.Data = append([]byte(nil), sum.Data...)
				inC2 := c2
				inC2.Data = append([]byte(nil), c2.Data...)
				for _, call := range []*wgrt.Call{
					{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{apart}, Inputs: []wgrt.Tensor{a, b, c, sum}, Attrs: attrs},
					{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{inSum}, Inputs: []wgrt.Tensor{a, b, c, inSum}, Attrs: attrs},
					{Kernel: "FusedGemm", Outputs: []wgrt.Tensor{inC2}, Inputs: []wgrt.Tensor{a, b, inC2}, Attrs: attrs},
				} {
					require.NoError(t, wgref.Call(call))
				}
				what := fmt.Sprintf("%s %dx%dx%d", isa, m, n, k)
				for w, want := range []wgrt.Tensor{apart, inSum, inC2} {
					cpp := got[4*m*n*w : 4*m*n*(w+1)]
					for i := 0; i < m*n; i++ {
						g := elem(want, i)
						cv := float64(math.Float32frombits(binary.LittleEndian.Uint32(cpp[4*i:])))
						require.False(t, math.IsInf(cv, 0) || math.IsNaN(cv), "%s way %d at %d: %v", what, w, i, cv)
						require.InDelta(t, g, cv, 1e-6*math.Abs(g), "%s way %d at %d", what, w, i)
					}
				}
				require.True(t, bytes.Equal(got[:4*m*n], got[4*m*n:8*m*n]), "%s: in the sum's memory, other bits than apart", what)
			}
		})
	}
}
