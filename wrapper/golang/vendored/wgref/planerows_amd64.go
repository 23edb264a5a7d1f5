package wgref

// stripVectorAVX2 is whether packStrips takes stripPanelAVX2 on the AVX2
// path (tests switch it off to test the portable path).
var stripVectorAVX2 = haveAVX2FMA

// planeRowsVector is whether copyPlaneRows takes planeRowsAVX512 (tests switch
// it off to test the portable path).
var planeRowsVector = haveAVX512

//go:noescape
func planeRowsAVX512(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int)

//go:noescape
func evensAVX512(dst, src *float32, n int, masks uint64)

//go:noescape
func gatherPanelAVX512(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int32, masks *uint32)

//go:noescape
func stripPanelAVX512(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int, masks *uint64, step, runs int)

//go:noescape
func stripPanelAVX2(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int, masks *uint64, step, runs int)
