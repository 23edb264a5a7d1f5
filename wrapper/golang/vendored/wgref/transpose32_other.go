//go:build !amd64

package wgref

const transposeVector = false

func transposeBlocks(dst *uint32, ldd int, src *uint32, lds, rows, cols int) {
	panic("wgref: no vector transpose here")
}
