package cppref

import (
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The convolutions whose im2col feeds Sgemm panel by panel
// (templates/wgref/im2col*.cc: the portable packer, the AVX2 and AVX-512
// strips) against the Go kernels on each instruction set, as Conv and as
// FusedConv with a residual sum (products accumulating into it); and
// testdata/im2col_check.cc, which checks every packed float of random
// blocks against im2col by the definition and that no packer writes past
// its block.

// panelConvCase is a random convolution the products take (neither
// depthwise nor a stem of at most four channels): rank 1 to 3, output
// width ow, odd sizes, pads 0 to 3, strides 1 to 3, dilations 1 and 2,
// groups.
func panelConvCase(r *rand.Rand, rank, ow int) convCase {
	cc := convCase{n: 1 + r.Intn(2), group: 1 + r.Intn(2)}
	cc.c = cc.group * (5 + r.Intn(8))
	cc.m = cc.group * (1 + r.Intn(40))
	for d := 0; d < rank; d++ {
		k := 1 + r.Intn(5)
		if d == rank-1 && rank == 2 && r.Intn(6) == 0 {
			k = 7
		}
		s, dl := 1+r.Intn(2), 1
		if r.Intn(5) == 0 {
			s = 3
		}
		if r.Intn(4) == 0 {
			dl = 2
		}
		cc.kernel, cc.strides, cc.dil = append(cc.kernel, k), append(cc.strides, s), append(cc.dil, dl)
	}
	for d := 0; d < 2*rank; d++ {
		cc.pads = append(cc.pads, r.Intn(4))
	}
	for d := 0; d < rank; d++ {
		want := 1 + r.Intn(9)
		if rank == 3 {
			want = 1 + r.Intn(4)
		}
		if d == rank-1 {
			want = ow
		}
		ext := (cc.kernel[d]-1)*cc.dil[d] + 1
		cc.in = append(cc.in, max(1, (want-1)*cc.strides[d]+ext-cc.pads[d]-cc.pads[rank+d]))
	}
	return cc
}

func TestConvPanelSourceMatchesGo(t *testing.T) {
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			srv := startServer(t)
			r := rand.New(rand.NewSource(31))
			for i := 0; i < 160; i++ {
				rank := []int{2, 2, 1, 3}[i%4]
				cc := panelConvCase(r, rank, 1+i%40)
				out := cc.convOut()
				if out[len(out)-1] == 0 {
					continue
				}
				x := randomF32(r, append([]int{cc.n, cc.c}, cc.in...)...)
				w := randomF32(r, append([]int{cc.m, cc.c / cc.group}, cc.kernel...)...)
				shape := append([]int{cc.n, cc.m}, out...)
				inputs := []wgrt.Tensor{x, w, randomF32(r, cc.m)}
				kernel, attrs := "Conv", cc.attrs()
				if i%3 == 1 { // a residual sum, then Relu
					kernel, attrs = "FusedConv", append(attrs, fusedActAttrs("Relu", 0, 0)...)
					inputs = append(inputs, randomF32(r, shape...))
				}
				call := &wgrt.Call{Kernel: kernel, Outputs: []wgrt.Tensor{newTensor(wgrt.F32, shape...)}, Inputs: inputs, Attrs: attrs,
					Scratch: make([]byte, goConvScratch(cc, out))}
				what := fmt.Sprintf("%s %s %v", isa, kernel, cc)
				t.Run(what, func(t *testing.T) { compareWithGo(t, srv, call, 1e-4, 1e-5) })
				if i%4 == 0 {
					sameBitsAtThreads(t, srv, call, what)
				}
			}
		})
	}
}

// TestIm2colPanelsCheck runs testdata/im2col_check.cc on each path.
func TestIm2colPanelsCheck(t *testing.T) {
	testenv.SkipUnlessLong(t, "it builds C++")
	im2colCheck.once.Do(func() {
		im2colCheck.bin, im2colCheck.err = compileCheck("im2col_check", []string{"isa.h", "isa.cc", "gemm.h", "im2col.h", "im2col.cc", "im2col_avx2.cc", "im2col_avx512.cc"})
	})
	require.NoError(t, im2colCheck.err)
	for _, isa := range isaPaths {
		t.Run(isa, func(t *testing.T) {
			t.Setenv("WGREF_ISA", isa)
			args := append(append([]string{}, OptionsFromEnv().Exec...), im2colCheck.bin)
			out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
			require.NoError(t, err, "im2col_check:\n%s", out)
			require.Contains(t, string(out), " ok ", "im2col_check:\n%s", out)
			t.Logf("WGREF_ISA=%s: %s", isa, strings.TrimSpace(string(out)))
		})
	}
}

var im2colCheck struct {
	once sync.Once
	bin  string
	err  error
}
