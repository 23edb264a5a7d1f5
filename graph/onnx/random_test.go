package onnx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

// randomUniformModel is a model of one RandomUniform node of shape [2, 3]
// (no inputs), with attribute seed when seeded.
func randomUniformModel(seeded bool) []byte {
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
	// AttributeProto: name 1, f 2, ints 8, type 20 (FLOAT 1, INTS 7).
	shape := bytesField(nil, 1, []byte("shape"))
	shape = varint(shape, 8, 2)
	shape = varint(shape, 8, 3)
	shape = varint(shape, 20, 7)
	node := bytesField(nil, 2, []byte("y"))
	node = bytesField(node, 4, []byte("RandomUniform"))
	node = bytesField(node, 5, shape)
	if seeded {
		seed := bytesField(nil, 1, []byte("seed"))
		seed = protowire.AppendTag(seed, 2, protowire.Fixed32Type)
		seed = protowire.AppendFixed32(seed, math.Float32bits(7))
		seed = varint(seed, 20, 1)
		node = bytesField(node, 5, seed)
	}
	g := bytesField(nil, 1, node)
	g = bytesField(g, 2, []byte("g"))
	g = bytesField(g, 12, bytesField(nil, 1, []byte("y")))
	m := varint(nil, 1, 8)
	m = bytesField(m, 7, g)
	return bytesField(m, 8, varint(nil, 2, 17))
}

// An unseeded random node is a kernel call even with all its inputs known
// (it has none): folded, every run would repeat one draw. A seeded one is
// deterministic and folds.
func TestRandomFoldsOnlyWithSeed(t *testing.T) {
	var folded []string
	opts := Options{Fold: func(c *FoldCall) error {
		folded = append(folded, c.Kernel)
		return nil
	}}
	g, _, err := Parse("random.onnx", randomUniformModel(false), opts)
	require.NoError(t, err)
	assert.Empty(t, folded)
	require.Len(t, g.Ops, 1)
	assert.Equal(t, "RandomUniform", g.Ops[0].Kernel)
	y := g.Tensor("y")
	assert.Equal(t, "f32", string(y.DType))
	assert.Equal(t, "[2, 3]", shapeText(y.Shape))

	g, _, err = Parse("random.onnx", randomUniformModel(true), opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"RandomUniform"}, folded)
	for _, op := range g.Ops {
		assert.NotEqual(t, "RandomUniform", op.Kernel, "a folded output is a constant (copied by Identity)")
	}
}
