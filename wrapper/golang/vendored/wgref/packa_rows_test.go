package wgref

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// packA on every kernel path (12-row panels through packPanel12 where the
// path's mr is 12 and A is row-major) lays A out as the panels' definition
// says, checked element by element by a plain loop: whole and partial
// panels, blocks starting inside A, a row stride wider than the block, and
// a strided A (the general loop).
func TestPackAMatchesPanelLayout(t *testing.T) {
	forEachKernelPath(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(34))
		for _, s := range [][6]int{ // rows, cols of A, i0, p0, mc, kc
			{40, 70, 0, 0, 40, 70}, {40, 70, 3, 5, 25, 60}, {13, 9, 1, 2, 12, 7}, {100, 300, 12, 44, 88, 256},
		} {
			rows, cols, i0, p0, mc, kc := s[0], s[1], s[2], s[3], s[4], s[5]
			data := randFloats(r, rows*cols)
			for _, a := range []matrix{{data: data, rs: cols, cs: 1}, {data: data, rs: 1, cs: rows}} {
				if a.cs != 1 {
					// A's element (i, p) at i + p·rows: the same sizes, column-major.
					if i0+mc > rows || p0+kc > cols {
						continue
					}
				}
				panels := (mc + mr - 1) / mr
				dst := make([]float32, panels*mr*kc)
				for i := range dst {
					dst[i] = 99 // every element is written
				}
				packA(dst, a, i0, p0, mc, kc)
				for q := 0; q < panels; q++ {
					for p := 0; p < kc; p++ {
						for i := 0; i < mr; i++ {
							want := float32(0)
							if row := q*mr + i; row < mc {
								want = a.data[(i0+row)*a.rs+(p0+p)*a.cs]
							}
							require.Equal(t, want, dst[q*mr*kc+p*mr+i], "%v cs %d panel %d step %d row %d (mr %d)", s, a.cs, q, p, i, mr)
						}
					}
				}
			}
		}
	})
}
