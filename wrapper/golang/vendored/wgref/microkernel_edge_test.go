//go:build amd64

package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each edge kernel computes the corner of a tile it is chosen for as the
// portable micro-kernel computes the whole tile, on every corner size,
// short and odd depths, and B rows apart in memory; the full tile is no
// edge kernel's.
func TestEdgeKernelsMatchGo(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this CPU: the edge kernels are not taken")
	}
	r := rand.New(rand.NewSource(25))
	require.False(t, avx512Path.edge(4, make([]float32, 48), make([]float32, 4*32), 32, make([]float32, 12*32), 32, 12, 32))
	require.False(t, avx512Path.edge(4, make([]float32, 48), make([]float32, 4*32), 32, make([]float32, 12*32), 32, 9, 21))
	for _, kc := range []int{1, 2, 3, 17, 256} {
		for _, ldb := range []int{32, 45} {
			a, b := randFloats(r, 12*kc), randFloats(r, (kc-1)*ldb+32)
			want := make([]float32, 12*32)
			microKernelGo(12, 32, kc, a, b, ldb, want, 32, false)
			for rows := 1; rows <= 12; rows++ {
				for cols := 1; cols <= 32; cols++ {
					if rows > 8 && cols > 20 {
						continue // kernel12x32's
					}
					got := randFloats(r, 12*32)
					require.True(t, avx512Path.edge(kc, a, b, ldb, got, 32, rows, cols))
					for i := range rows {
						requireClose(t, want[i*32:i*32+cols], got[i*32:i*32+cols], 1e-5, "kc %d ldb %d corner %dx%d row %d", kc, ldb, rows, cols, i)
					}
				}
			}
		}
	}
}

// On the AVX2 path a last panel of four rows or fewer (kernel4x16,
// kernel2x16) gives the full kernel's bits for those rows, on every
// column count past edgeCols', short, odd and long depths, B rows apart
// in memory, and writes no row past them; five rows or more are the full
// kernel's.
func TestEdgeRowsAVX2MatchFullKernel(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 on this CPU: the edge kernels are not taken")
	}
	r := rand.New(rand.NewSource(26))
	require.False(t, avx2Path.edge(4, make([]float32, 24), make([]float32, 4*16), 16, make([]float32, 6*16), 16, 5, 16))
	for _, kc := range []int{1, 2, 3, 17, 256} {
		for _, ldb := range []int{16, 29} {
			a, b := randFloats(r, 6*kc), randFloats(r, (kc-1)*ldb+16)
			want := make([]float32, 6*16)
			avx2Path.run(kc, a, b, ldb, want, 16, false)
			for rows := 1; rows <= 4; rows++ {
				for cols := 5; cols <= 16; cols++ {
					got := randFloats(r, 6*16)
					past := append([]float32(nil), got[4*16:]...)
					require.True(t, avx2Path.edge(kc, a, b, ldb, got, 16, rows, cols))
					for i := range rows {
						require.Equal(t, want[i*16:i*16+cols], got[i*16:i*16+cols], "kc %d ldb %d corner %dx%d row %d", kc, ldb, rows, cols, i)
					}
					require.Equal(t, past, got[4*16:], "kc %d: rows past four written", kc)
				}
			}
		}
	}
}

// A tile's last one to four columns (kernel6x1 and kernel6x4 on the AVX2
// path, kernel12x1 and kernel12x4 on AVX-512's) give what the portable
// micro-kernel gives for them, on every row count, short, odd and long
// depths (every chain's remainder), and B rows apart in memory, and write
// nothing past the corner; on AVX2, five columns or more are the full
// kernel's.
func TestEdgeColumnsMatchGo(t *testing.T) {
	if !haveAVX2FMA {
		t.Skip("no AVX2 and FMA on this CPU")
	}
	r := rand.New(rand.NewSource(26))
	require.False(t, avx2Path.edge(4, make([]float32, 24), make([]float32, 4*16), 16, make([]float32, 6*16), 16, 6, 5))
	for _, p := range kernelPaths()[1:] {
		mr, nr := p.mr, p.nr
		for _, kc := range []int{1, 2, 3, 4, 5, 7, 17, 256} {
			for _, ldb := range []int{nr, nr + 7} {
				a, b := randFloats(r, mr*kc), randFloats(r, (kc-1)*ldb+nr)
				want := make([]float32, mr*nr)
				microKernelGo(mr, nr, kc, a, b, ldb, want, nr, false)
				for rows := 1; rows <= mr; rows++ {
					for cols := 1; cols <= 4; cols++ {
						got := randFloats(r, mr*nr)
						keep := append([]float32(nil), got...)
						require.True(t, p.edge(kc, a, b, ldb, got, nr, rows, cols))
						for i := range mr {
							if i < rows {
								requireClose(t, want[i*nr:i*nr+cols], got[i*nr:i*nr+cols], 1e-5, "%s kc %d ldb %d corner %dx%d row %d", p.name, kc, ldb, rows, cols, i)
								require.Equal(t, keep[i*nr+cols:i*nr+nr], got[i*nr+cols:i*nr+nr], "past the corner")
							} else {
								require.Equal(t, keep[i*nr:i*nr+nr], got[i*nr:i*nr+nr], "below the corner")
							}
						}
					}
				}
			}
		}
	}
}
