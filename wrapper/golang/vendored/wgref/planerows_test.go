package wgref

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// copyPlaneRows (the AVX-512 rows where the CPU has them, and the Go ones)
// copies exactly the rows' floats, on widths around the vector's, and
// leaves the gaps between rows alone.
func TestCopyPlaneRowsMatchesPlainLoop(t *testing.T) {
	defer func(v bool) { planeRowsVector = v }(planeRowsVector)
	paths := []bool{false}
	if planeRowsVector {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(20))
	for _, vector := range paths {
		planeRowsVector = vector
		for _, cols := range []int{1, 7, 15, 16, 17, 31, 32, 33, 56, 113} {
			for _, rows := range []int{1, 3, 8} {
				srcStride, dstStride := cols+r.Intn(5), cols+r.Intn(5)
				src := randFloats(r, (rows-1)*srcStride+cols) // ends at the last row's end
				dst := randFloats(r, (rows-1)*dstStride+cols)
				want := append([]float32(nil), dst...)
				for i := range rows {
					for j := range cols {
						want[i*dstStride+j] = src[i*srcStride+j]
					}
				}
				copyPlaneRows(dst, dstStride, src, srcStride, rows, cols)
				require.Equal(t, want, dst, "%s", fmt.Sprintf("vector %v rows %d cols %d", vector, rows, cols))
			}
		}
	}
}

// copyEvens (AVX-512 where the CPU has it, and Go) takes every other float
// of sources that end right at the last even one, on lengths around the
// vector's.
func TestCopyEvensMatchesPlainLoop(t *testing.T) {
	defer func(v bool) { planeRowsVector = v }(planeRowsVector)
	paths := []bool{false}
	if planeRowsVector {
		paths = append(paths, true)
	}
	r := rand.New(rand.NewSource(23))
	for _, vector := range paths {
		planeRowsVector = vector
		for _, n := range []int{1, 2, 15, 16, 17, 31, 32, 33, 56, 112} {
			src := randFloats(r, 2*n-1)
			dst := make([]float32, n+1)
			dst[n] = 7 // past the row: left alone
			want := make([]float32, n+1)
			for i := range n {
				want[i] = src[2*i]
			}
			want[n] = 7
			copyEvens(dst[:n], src)
			require.Equal(t, want, dst, "%s", fmt.Sprintf("vector %v n %d", vector, n))
		}
	}
}
