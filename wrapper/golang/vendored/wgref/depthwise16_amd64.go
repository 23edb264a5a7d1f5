package wgref

// depthwise16Vector is whether depthwise convolutions take the sixteen-
// channel blocks (conv_depthwise16.go); tests switch it off.
var depthwise16Vector = haveAVX512

// depthwise8Vector is whether depthwise convolutions take eight-channel
// blocks (AVX2) where the sixteen-channel ones are not taken; tests
// switch it off.
var depthwise8Vector = haveAVX2FMA

// mix8Vector is whether grouped convolutions of 2, 4 or 8 channels a
// group take eight-channel blocks (conv_mixed8.go); tests switch it off.
var mix8Vector = haveAVX2FMA

// maxPool16Vector is whether max pooling takes the sixteen-channel blocks,
// maxPool8Vector whether it takes eight-channel blocks (AVX2) where those
// are not taken (tests switch them off).
var maxPool16Vector, maxPool8Vector = haveAVX512, haveAVX2FMA

//go:noescape
func pack16AVX512(dst, src *float32, chanStride, rowStride, rows, cols, dstRow int, fill float32)

//go:noescape
func maxpool16AVX512(out, in *float32, oh, ow, rowStep, colStep int, offs *int, taps int)

//go:noescape
func unpack16AVX512(dst *float32, chanStride int, src *float32, n int)

//go:noescape
func depthwise16AVX512(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int)

//go:noescape
func pack8AVX2(dst, src *float32, chanStride, rowStride, rows, cols, dstRow int, fill float32)

//go:noescape
func maxpool8AVX2(out, in *float32, oh, ow, rowStep, colStep int, offs *int, taps int)

//go:noescape
func unpack8AVX2(dst *float32, chanStride int, src *float32, n int)

//go:noescape
func depthwise8AVX2(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int)

//go:noescape
func mix8AVX2(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int)

//go:noescape
func mix8AccAVX2(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int)

//go:noescape
func mix16AVX512(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int)
