//go:build !amd64

package wgref

const tapRowLanes = 8

// No assembly here: tapRow runs tapRowGo throughout.
const tapRowVector = false

var tapRowWide = false

func tapRowAsm(dst, src []float32, offs []int, wts []float32, stride int, init float32, op tapOp) {
	tapRowGo(dst, src, offs, wts, stride, init, op)
}

func tapRowSumWide(dst, src []float32, offs []int, wts []float32, stride int, init float32, hi int) {
	tapRowGo(dst, src, offs, wts, stride, init, tapSum)
}
