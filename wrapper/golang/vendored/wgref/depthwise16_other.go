//go:build !amd64

package wgref

var depthwise16Vector, depthwise8Vector, mix8Vector, maxPool16Vector, maxPool8Vector = false, false, false, false, false

func pack16AVX512(dst, src *float32, chanStride, rowStride, rows, cols, dstRow int, fill float32) {
	panic("wgref: no AVX-512 here")
}

func unpack16AVX512(dst *float32, chanStride int, src *float32, n int) {
	panic("wgref: no AVX-512 here")
}

func depthwise16AVX512(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX-512 here")
}

func maxpool16AVX512(out, in *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX-512 here")
}

func maxpool8AVX2(out, in *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX2 here")
}

func pack8AVX2(dst, src *float32, chanStride, rowStride, rows, cols, dstRow int, fill float32) {
	panic("wgref: no AVX2 here")
}

func unpack8AVX2(dst *float32, chanStride int, src *float32, n int) {
	panic("wgref: no AVX2 here")
}

func depthwise8AVX2(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX2 here")
}

func mix8AVX2(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX2 here")
}

func mix8AccAVX2(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX2 here")
}

func mix16AVX512(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int) {
	panic("wgref: no AVX-512 here")
}
