//go:build !amd64

package wgref

var biasClampVector, biasClampVector8 = false, false

func biasClampAVX512(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32) {
	panic("wgref: no AVX-512 here")
}

func biasClampAVX2(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32) {
	panic("wgref: no AVX2 here")
}
