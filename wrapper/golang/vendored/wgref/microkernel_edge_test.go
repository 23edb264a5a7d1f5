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
	for _, kc := range []int{1, 2, 3, 17, 256} {
		for _, ldb := range []int{32, 45} {
			a, b := randFloats(r, 12*kc), randFloats(r, (kc-1)*ldb+32)
			want := make([]float32, 12*32)
			microKernelGo(12, 32, kc, a, b, ldb, want, 32, false)
			for rows := 1; rows <= 12; rows++ {
				for cols := 1; cols <= 32; cols++ {
					if rows > 8 && cols > 16 {
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
