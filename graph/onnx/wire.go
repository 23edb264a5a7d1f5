package onnx

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The reader walks the protobuf wire format with protowire instead of using
// types generated from onnx.proto: the importer needs a small subset of the
// schema, reading it by hand keeps the absolute byte offset of every field
// (so a malformed file is reported at the exact byte), needs no protoc at
// build time, and skips the fields it does not use without decoding them.

// wireError is malformed protobuf at a byte offset of the file.
type wireError struct {
	off int
	msg string
}

func (e *wireError) Error() string {
	return fmt.Sprintf("byte %d: malformed protobuf: %s", e.off, e.msg)
}

// msg is one message's bytes and where they start in the file.
type msg struct {
	b    []byte
	base int
}

// fields calls f for every field of m with its number, wire type, and
// either its varint/fixed value or its bytes (as a sub-message).
func (m msg) fields(what string, f func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error) error {
	b := m.b
	pos := 0
	for pos < len(b) {
		num, typ, n := protowire.ConsumeTag(b[pos:])
		if n < 0 {
			return &wireError{m.base + pos, fmt.Sprintf("in %s: bad field tag: %v", what, protowire.ParseError(n))}
		}
		start := pos
		pos += n
		var v uint64
		var sub msg
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b[pos:])
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b[pos:])
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b[pos:])
		case protowire.BytesType:
			var bs []byte
			bs, n = protowire.ConsumeBytes(b[pos:])
			if n >= 0 {
				sub = msg{bs, m.base + pos + n - len(bs)}
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b[pos:])
		}
		if n < 0 {
			return &wireError{m.base + start, fmt.Sprintf("in %s: field %d: %v", what, num, protowire.ParseError(n))}
		}
		pos += n
		if err := f(num, typ, v, sub); err != nil {
			return err
		}
	}
	return nil
}

func (m msg) str() string { return string(m.b) }

// ints reads a repeated integer field, packed or not, appending to dst.
func ints[T int64 | int32 | uint64](dst []T, typ protowire.Type, v uint64, sub msg) ([]T, error) {
	if typ == protowire.VarintType {
		return append(dst, T(v)), nil
	}
	if typ != protowire.BytesType {
		return dst, &wireError{sub.base, "integer list with a wrong wire type"}
	}
	b := sub.b
	for len(b) > 0 {
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return dst, &wireError{sub.base + len(sub.b) - len(b), "bad packed varint"}
		}
		dst = append(dst, T(x))
		b = b[n:]
	}
	return dst, nil
}

func floats32(dst []float32, typ protowire.Type, v uint64, sub msg) ([]float32, error) {
	if typ == protowire.Fixed32Type {
		return append(dst, math.Float32frombits(uint32(v))), nil
	}
	if typ != protowire.BytesType || len(sub.b)%4 != 0 {
		return dst, &wireError{sub.base, "float list with a wrong wire type or length"}
	}
	for i := 0; i < len(sub.b); i += 4 {
		x, _ := protowire.ConsumeFixed32(sub.b[i:])
		dst = append(dst, math.Float32frombits(x))
	}
	return dst, nil
}

func floats64(dst []float64, typ protowire.Type, v uint64, sub msg) ([]float64, error) {
	if typ == protowire.Fixed64Type {
		return append(dst, math.Float64frombits(v)), nil
	}
	if typ != protowire.BytesType || len(sub.b)%8 != 0 {
		return dst, &wireError{sub.base, "double list with a wrong wire type or length"}
	}
	for i := 0; i < len(sub.b); i += 8 {
		x, _ := protowire.ConsumeFixed64(sub.b[i:])
		dst = append(dst, math.Float64frombits(x))
	}
	return dst, nil
}

// want checks a field's wire type.
func want(what string, num protowire.Number, typ, wantTyp protowire.Type, sub msg) error {
	if typ != wantTyp {
		return &wireError{sub.base, fmt.Sprintf("in %s: field %d has wire type %d, want %d", what, num, typ, wantTyp)}
	}
	return nil
}

func readModel(data []byte) (*model, error) {
	m := &model{opsets: map[string]int64{}}
	err := msg{data, 0}.fields("ModelProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		switch num {
		case 1: // ir_version
			m.irVersion = int64(v)
		case 7: // graph
			if err := want("ModelProto", num, typ, protowire.BytesType, sub); err != nil {
				return err
			}
			g, err := readGraph(sub)
			m.graph = g
			return err
		case 8: // opset_import
			if err := want("ModelProto", num, typ, protowire.BytesType, sub); err != nil {
				return err
			}
			var domain string
			var version int64
			err := sub.fields("OperatorSetIdProto", func(num protowire.Number, typ protowire.Type, v uint64, s msg) error {
				switch num {
				case 1:
					domain = s.str()
				case 2:
					version = int64(v)
				}
				return nil
			})
			if domain == "ai.onnx" {
				domain = ""
			}
			m.opsets[domain] = version
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m.graph == nil {
		return nil, &wireError{0, "no graph in the model (is this an ONNX model file?)"}
	}
	return m, nil
}

func readGraph(gm msg) (*graphProto, error) {
	g := &graphProto{}
	err := gm.fields("GraphProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		if num == 1 || num == 2 || num == 5 || num == 11 || num == 12 || num == 13 || num == 15 {
			if err := want("GraphProto", num, typ, protowire.BytesType, sub); err != nil {
				return err
			}
		}
		switch num {
		case 1:
			n, err := readNode(sub)
			g.nodes = append(g.nodes, n)
			return err
		case 2:
			g.name = sub.str()
		case 5:
			t, err := readTensor(sub)
			g.initializers = append(g.initializers, t)
			return err
		case 11, 12, 13:
			vi, err := readValueInfo(sub)
			switch num {
			case 11:
				g.inputs = append(g.inputs, vi)
			case 12:
				g.outputs = append(g.outputs, vi)
			default:
				g.valueInfo = append(g.valueInfo, vi)
			}
			return err
		case 15:
			g.sparseInits++
		}
		return nil
	})
	return g, err
}

func readNode(nm msg) (*nodeProto, error) {
	n := &nodeProto{}
	err := nm.fields("NodeProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		if num >= 1 && num <= 5 || num == 7 {
			if err := want("NodeProto", num, typ, protowire.BytesType, sub); err != nil {
				return err
			}
		}
		switch num {
		case 1:
			n.inputs = append(n.inputs, sub.str())
		case 2:
			n.outputs = append(n.outputs, sub.str())
		case 3:
			n.name = sub.str()
		case 4:
			n.opType = sub.str()
		case 5:
			a, err := readAttribute(sub)
			n.attrs = append(n.attrs, a)
			return err
		case 7:
			n.domain = sub.str()
			if n.domain == "ai.onnx" {
				n.domain = ""
			}
		}
		return nil
	})
	return n, err
}

func readAttribute(am msg) (*attribute, error) {
	a := &attribute{}
	err := am.fields("AttributeProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		var err error
		switch num {
		case 1:
			a.name = sub.str()
		case 2:
			if err := want("AttributeProto", num, typ, protowire.Fixed32Type, sub); err != nil {
				return err
			}
			a.f = float64(math.Float32frombits(uint32(v)))
		case 3:
			a.i = int64(v)
		case 4:
			a.s = sub.b
		case 5:
			a.t, err = readTensor(sub)
		case 6:
			if err := want("AttributeProto", num, typ, protowire.BytesType, sub); err != nil {
				return err
			}
			a.g, err = readGraph(sub)
		case 7:
			var fs []float32
			fs, err = floats32(nil, typ, v, sub)
			for _, f := range fs {
				a.floats = append(a.floats, float64(f))
			}
		case 8:
			a.ints, err = ints(a.ints, typ, v, sub)
		case 9:
			a.strings = append(a.strings, sub.b)
		case 20:
			a.typ = int64(v)
		case 21:
			a.refAttr = sub.str()
		}
		return err
	})
	return a, err
}

func readValueInfo(vm msg) (*valueInfo, error) {
	vi := &valueInfo{}
	err := vm.fields("ValueInfoProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		switch num {
		case 1:
			vi.name = sub.str()
		case 2:
			t, err := readType(sub)
			vi.typ = t
			return err
		}
		return nil
	})
	return vi, err
}

func readType(tm msg) (*typeProto, error) {
	t := &typeProto{}
	err := tm.fields("TypeProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		switch num {
		case 1: // tensor_type
			t.kind = "tensor"
			return sub.fields("TypeProto.Tensor", func(num protowire.Number, typ protowire.Type, v uint64, s msg) error {
				switch num {
				case 1:
					t.elemType = int64(v)
				case 2:
					t.hasShape = true
					return s.fields("TensorShapeProto", func(num protowire.Number, typ protowire.Type, v uint64, ds msg) error {
						if num != 1 {
							return nil
						}
						var d dimension
						err := ds.fields("Dimension", func(num protowire.Number, typ protowire.Type, v uint64, x msg) error {
							switch num {
							case 1:
								d.value, d.hasValue = int64(v), true
							case 2:
								d.param = x.str()
							}
							return nil
						})
						t.dims = append(t.dims, d)
						return err
					})
				}
				return nil
			})
		case 4:
			t.kind = "sequence"
		case 5:
			t.kind = "map"
		case 8:
			t.kind = "sparse tensor"
		case 9:
			t.kind = "optional"
		}
		return nil
	})
	return t, err
}

func readTensor(tm msg) (*tensorProto, error) {
	t := &tensorProto{}
	err := tm.fields("TensorProto", func(num protowire.Number, typ protowire.Type, v uint64, sub msg) error {
		var err error
		switch num {
		case 1:
			t.dims, err = ints(t.dims, typ, v, sub)
		case 2:
			t.dataType = int64(v)
		case 3:
			t.segment = true
		case 4:
			t.floatData, err = floats32(t.floatData, typ, v, sub)
		case 5:
			t.int32Data, err = ints(t.int32Data, typ, v, sub)
		case 6:
			t.stringData = append(t.stringData, sub.b)
		case 7:
			t.int64Data, err = ints(t.int64Data, typ, v, sub)
		case 8:
			t.name = sub.str()
		case 9:
			t.rawData, t.hasRaw = sub.b, true
		case 10:
			t.doubleData, err = floats64(t.doubleData, typ, v, sub)
		case 11:
			t.uint64Data, err = ints(t.uint64Data, typ, v, sub)
		case 13:
			t.external = true
		case 14:
			if v == locationExternal {
				t.external = true
			}
		}
		return err
	})
	return t, err
}
