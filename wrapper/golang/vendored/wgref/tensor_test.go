package wgref

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func TestEachRowVisitsEveryIndexOnce(t *testing.T) {
	shape := []int{2, 3, 4}
	a := rowMajor(shape)
	b := []int{1, 0, 2} // a strided, broadcast operand
	var gotA, gotB []int
	eachRow(shape, [][]int{a, b}, func(off [maxOperands]int, n int, step [maxOperands]int) {
		for i := 0; i < n; i++ {
			gotA = append(gotA, off[0]+i*step[0])
			gotB = append(gotB, off[1]+i*step[1])
		}
	})
	var wantA, wantB []int
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 4; k++ {
				wantA = append(wantA, i*12+j*4+k)
				wantB = append(wantB, i*1+k*2)
			}
		}
	}
	assert.Equal(t, wantA, gotA)
	assert.Equal(t, wantB, gotB)
}

func TestEachRowRankZeroAndEmpty(t *testing.T) {
	calls := 0
	eachRow(nil, [][]int{{}}, func(off [maxOperands]int, n int, step [maxOperands]int) { calls++; assert.Equal(t, 1, n) })
	assert.Equal(t, 1, calls)
	eachRow([]int{3, 0}, [][]int{{0, 1}}, func([maxOperands]int, int, [maxOperands]int) { t.Fatal("called for an empty shape") })
}

func TestBroadcast(t *testing.T) {
	x := wgrt.Tensor{Shape: []int{3, 1}, Strides: []int{1, 1}}
	y := wgrt.Tensor{Shape: []int{4}, Strides: []int{1}}
	assert.True(t, broadcasts(x.Shape, y.Shape))
	s := []int{3, 4}
	assert.Equal(t, []int{1, 0}, broadcastStrides(new([maxRank]int), s, x))
	assert.Equal(t, []int{0, 1}, broadcastStrides(new([maxRank]int), s, y))
	assert.False(t, broadcasts([]int{3}, []int{4}))
	assert.True(t, broadcasts([]int{2, 1, 5}, []int{7, 1}))
}
