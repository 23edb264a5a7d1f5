package wgref

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// The weighting modes, which ONNX's node tests leave out (they are all TF),
// on attributes as graph/onnx gives them: in [1 2 1 3], 1-grams 1 (twice)
// and 3, 2-grams [1 2] and [2 1] (skipping one item: [1 1] and [2 3] too,
// not in the pool); 9 is not found.
func TestTfIdfVectorizerModes(t *testing.T) {
	for _, tc := range []struct {
		mode, weights string
		want          []float32
	}{
		{"TF", "", []float32{2, 1, 1, 1, 0}},
		{"TFIDF", "0.5,2,3,4,5", []float32{1, 2, 3, 4, 0}},
		{"TFIDF", "", []float32{2, 1, 1, 1, 0}},
		{"IDF", "0.5,2,3,4,5", []float32{0.5, 2, 3, 4, 0}},
		{"IDF", "", []float32{1, 1, 1, 1, 0}},
	} {
		x := wgrt.New(wgrt.I64, 1, 4)
		copy(x.Int64s(), []int64{1, 2, 1, 3})
		y := wgrt.New(wgrt.F32, 1, 5)
		c := &wgrt.Call{Kernel: "TfIdfVectorizer", Inputs: []wgrt.Tensor{x}, Outputs: []wgrt.Tensor{y}, Attrs: []wgrt.Attr{
			{Name: "mode", Kind: wgrt.AttrString, Str: tc.mode},
			{Name: "min_gram_length", Kind: wgrt.AttrInt, Int: 1},
			{Name: "max_skip_count", Kind: wgrt.AttrInt, Int: 1},
			{Name: "pool", Kind: wgrt.AttrInts, Ints: []int{1, 3, 9, 1, 2, 2, 1}},
			{Name: "pool_starts", Kind: wgrt.AttrInts, Ints: []int{0, 3, 7}},
			{Name: "pool_indexes", Kind: wgrt.AttrInts, Ints: []int{0, 2, 4, 1, 3}},
			{Name: "weights", Kind: wgrt.AttrString, Str: tc.weights},
		}}
		require.NoError(t, Call(c), tc.mode)
		assert.Equal(t, tc.want, y.Float32s(), "%s weights %q", tc.mode, tc.weights)
		assert.Zero(t, testing.AllocsPerRun(10, func() { _ = Call(c) }), "%s weights %q", tc.mode, tc.weights)
	}
}
