package wgref

// biasClampVector is whether rowEpilogue finishes blocks with
// biasClampAVX512 (tests switch it off to test the portable path).
var biasClampVector = haveAVX512

//go:noescape
func biasClampAVX512(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)
