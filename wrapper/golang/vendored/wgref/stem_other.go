//go:build !amd64

package wgref

var stemTapsVector = false

func kernel6x16Taps(kc int, a, b *float32, offs *int, c *float32, ldc int) {
	panic("wgref: no AVX2 here")
}

func kernel12x32Taps(kc int, a, b *float32, offs *int, c *float32, ldc int) {
	panic("wgref: no AVX-512 here")
}

func kernel12x16Taps(kc int, a, b *float32, offs *int, c *float32, ldc int) {
	panic("wgref: no AVX-512 here")
}

func kernel4x32Taps(kc int, a, b *float32, offs *int, c *float32, ldc int) {
	panic("wgref: no AVX-512 here")
}

func deinterleaveAVX2(even, odd, src *float32, n int) { panic("wgref: no AVX2 here") }
