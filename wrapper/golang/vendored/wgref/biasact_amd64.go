package wgref

// biasClampVector is whether rowEpilogue finishes blocks with
// biasClampAVX512 (tests switch it off to test the portable path).
var biasClampVector = haveAVX512

// biasClampVector8 is whether rowEpilogue finishes a block's whole
// vectors of eight with biasClampAVX2 where biasClampVector does not
// take it (tests switch it off as well).
var biasClampVector8 = vecAVX2

//go:noescape
func biasClampAVX512(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)

// biasClampAVX2 is biasClampAVX512 for cols a positive multiple of 8
// (vec_amd64.s).
//
//go:noescape
func biasClampAVX2(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)
