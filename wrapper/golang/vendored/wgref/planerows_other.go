//go:build !amd64

package wgref

var planeRowsVector = false

var stripVectorAVX2 = false

func planeRowsAVX512(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int) {
	panic("wgref: no AVX-512 here")
}

func evensAVX512(dst, src *float32, n int, masks uint64) {
	panic("wgref: no AVX-512 here")
}

func gatherPanelAVX512(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int32, masks *uint32) {
	panic("wgref: no AVX-512 here")
}

func stripPanelAVX512(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int, masks *uint64, step, runs int) {
	panic("wgref: no AVX-512 here")
}

func stripPanelAVX2(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int, masks *uint64, step, runs int) {
	panic("wgref: no AVX2 here")
}
