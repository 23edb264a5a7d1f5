//go:build !amd64

package wgref

// transposeVector is a var, as on amd64, so the tests can set it.
var transposeVector = false

// haveAVX2FMA: no x86 vector unit here.
const haveAVX2FMA = false

func transposeBlocks(dst *uint32, ldd int, src *uint32, lds, rows, cols int) {
	panic("wgref: no vector transpose here")
}
