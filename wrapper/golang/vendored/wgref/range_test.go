package wgref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// A Range whose limit is data, at every small start, delta and limit: the
// elements of Python's range(start, limit, delta), written compactly into
// a capacity of 12, their count in the last output; beyond the capacity
// an error.
func TestRangeOfData(t *testing.T) {
	for start := -2; start <= 3; start++ {
		for delta := 1; delta <= 3; delta++ {
			for limit := int64(-4); limit <= 30; limit++ {
				var want []int64
				for v := int64(start); v < limit; v += int64(delta) {
					want = append(want, v)
				}
				out, count := capacity(12), capacity()
				c := &wgrt.Call{Kernel: "Range", Inputs: []wgrt.Tensor{wgrt.View([]int64{limit})}, Outputs: []wgrt.Tensor{out, count},
					Attrs: []wgrt.Attr{intAttr("start", start), intAttr("delta", delta), boolAttr("exact", false)}}
				if len(want) > 12 {
					assert.ErrorContains(t, Call(c), "beyond the 12 the output holds", "range(%d, %d, %d)", start, limit, delta)
					continue
				}
				callOK(t, c)
				assert.Equal(t, compact(12, want...), out.Int64s(), "range(%d, %d, %d)", start, limit, delta)
				assert.Equal(t, []int64{int64(len(want))}, count.Int64s())
			}
		}
	}
}

// exact refuses a limit below the start (the importer took the limit for
// start + length); length refuses a limit that gives another length, and
// writes at the output's strides (no run-time size).
func TestRangeOfDataChecks(t *testing.T) {
	lim := func(v int32) wgrt.Tensor { return wgrt.View([]int32{v}) }
	out, count := capacity(8), capacity()
	err := Call(&wgrt.Call{Kernel: "Range", Inputs: []wgrt.Tensor{lim(-1)}, Outputs: []wgrt.Tensor{out, count},
		Attrs: []wgrt.Attr{intAttr("start", 0), intAttr("delta", 1), boolAttr("exact", true)}})
	assert.ErrorContains(t, err, "the limit -1 is below the start 0")

	attrs := []wgrt.Attr{intAttr("start", 2), intAttr("delta", 1), boolAttr("exact", true), intAttr("length", 3)}
	err = Call(&wgrt.Call{Kernel: "Range", Inputs: []wgrt.Tensor{lim(6)}, Outputs: []wgrt.Tensor{capacity(3), count}, Attrs: attrs})
	assert.ErrorContains(t, err, "the limit 6 gives 4 elements, but the model's shapes need 3")

	// Every other element of a [6] buffer: a strided output of 3.
	buf := capacity(6)
	strided := buf
	strided.Shape, strided.Strides = []int{3}, []int{2}
	callOK(t, &wgrt.Call{Kernel: "Range", Inputs: []wgrt.Tensor{lim(5)}, Outputs: []wgrt.Tensor{strided, count}, Attrs: attrs})
	assert.Equal(t, []int64{2, untouched, 3, untouched, 4, untouched}, buf.Int64s())
	require.Equal(t, []int64{3}, count.Int64s())
}
