package onnx

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// A model builder for reproducers: graph inputs, initializers, nodes with
// attributes of any type (the type follows the Go value, so a test gives
// an int64 where the operator wants a float to build a mismatch), outputs.

type bModel struct {
	opset        uint64 // default 17
	inputs       []tInput
	inits        []bInit
	nodes        []bNode
	outputs      []string
	typedOutputs []tInput // outputs declared with a type, after outputs
}

type bNode struct {
	op, name  string
	ins, outs []string
	attrs     []bAttr
}

// bAttr is an attribute: value is an int64 (INT), float32 (FLOAT), string
// (STRING), []int64 (INTS), []float32 (FLOATS), []string (STRINGS) or a
// bModel (GRAPH: its graph; a Loop's body).
type bAttr struct {
	name  string
	value any
}

// bInit is an initializer (a TensorProto): dtype elem when set (its
// contents in raw), else i64 when i64 is not nil, else f32; every field
// given is written (a test may fill two).
type bInit struct {
	name string
	dims []int64
	f32  []float32
	i64  []int64
	raw  []byte
	elem uint64 // TensorProto.DataType
}

func pbBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func pbVarint(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func (a bAttr) proto() []byte {
	p := pbBytes(nil, 1, []byte(a.name))
	var typ uint64
	switch v := a.value.(type) {
	case int64:
		p, typ = pbVarint(p, 3, uint64(v)), attrInt
	case float32:
		p = protowire.AppendFixed32(protowire.AppendTag(p, 2, protowire.Fixed32Type), math.Float32bits(v))
		typ = attrFloat
	case string:
		p, typ = pbBytes(p, 4, []byte(v)), attrString
	case []int64:
		for _, x := range v {
			p = pbVarint(p, 8, uint64(x))
		}
		typ = attrInts
	case []float32:
		for _, x := range v {
			p = protowire.AppendFixed32(protowire.AppendTag(p, 7, protowire.Fixed32Type), math.Float32bits(x))
		}
		typ = attrFloats
	case []string:
		for _, x := range v {
			p = pbBytes(p, 9, []byte(x))
		}
		typ = attrStrings
	case bModel:
		p, typ = pbBytes(p, 6, v.graph()), attrGraph
	default:
		panic("bAttr: unsupported value type")
	}
	return pbVarint(p, 20, typ)
}

func (t bInit) proto() []byte {
	var p []byte
	for _, d := range t.dims {
		p = pbVarint(p, 1, uint64(d))
	}
	if t.elem != 0 {
		p = pbVarint(p, 2, t.elem)
	} else if t.i64 != nil {
		p = pbVarint(p, 2, 7) // INT64
	} else {
		p = pbVarint(p, 2, 1) // FLOAT
	}
	for _, v := range t.f32 {
		p = protowire.AppendFixed32(protowire.AppendTag(p, 4, protowire.Fixed32Type), math.Float32bits(v))
	}
	for _, v := range t.i64 {
		p = pbVarint(p, 7, uint64(v))
	}
	if t.raw != nil {
		p = pbBytes(p, 9, t.raw)
	}
	return pbBytes(p, 8, []byte(t.name))
}

func (m bModel) bytes() []byte {
	opset := m.opset
	if opset == 0 {
		opset = 17
	}
	mp := pbVarint(nil, 1, 8)
	mp = pbBytes(mp, 7, m.graph())
	return pbBytes(mp, 8, pbVarint(nil, 2, opset))
}

// graph is m's GraphProto.
func (m bModel) graph() []byte {
	var g []byte
	for _, n := range m.nodes {
		var node []byte
		for _, in := range n.ins {
			node = pbBytes(node, 1, []byte(in))
		}
		for _, out := range n.outs {
			node = pbBytes(node, 2, []byte(out))
		}
		node = pbBytes(node, 3, []byte(n.name))
		node = pbBytes(node, 4, []byte(n.op))
		for _, a := range n.attrs {
			node = pbBytes(node, 5, a.proto())
		}
		g = pbBytes(g, 1, node)
	}
	g = pbBytes(g, 2, []byte("g"))
	for _, t := range m.inits {
		g = pbBytes(g, 5, t.proto())
	}
	valueInfo := func(in tInput) []byte {
		var dims []byte
		for _, d := range in.dims {
			switch d := d.(type) {
			case int:
				dims = pbBytes(dims, 1, pbVarint(nil, 1, uint64(d)))
			case string:
				dims = pbBytes(dims, 1, pbBytes(nil, 2, []byte(d)))
			}
		}
		tt := pbBytes(pbVarint(nil, 1, in.elem), 2, dims)
		return pbBytes(pbBytes(nil, 1, []byte(in.name)), 2, pbBytes(nil, 1, tt))
	}
	for _, in := range m.inputs {
		g = pbBytes(g, 11, valueInfo(in))
	}
	for _, out := range m.outputs {
		g = pbBytes(g, 12, pbBytes(nil, 1, []byte(out)))
	}
	for _, out := range m.typedOutputs {
		g = pbBytes(g, 12, valueInfo(out))
	}
	return g
}

// f32Input is a graph input of dtype f32 with the given dims.
func f32Input(name string, dims ...any) tInput { return tInput{name: name, elem: 1, dims: dims} }
