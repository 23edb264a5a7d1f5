package wgref

// transposeVector is whether copyTransposed32 runs (on AVX2; tests switch
// it off to compare with the element loop).
var transposeVector = haveAVX2FMA

// transposeBlocks sets dst[i*ldd+j] = src[j*lds+i] for j < rows, i < cols,
// both multiples of 8, in 8×8 blocks of AVX2 registers (transpose_amd64.s).
//
//go:noescape
func transposeBlocks(dst *uint32, ldd int, src *uint32, lds, rows, cols int)
