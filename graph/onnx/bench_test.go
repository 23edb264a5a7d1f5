package onnx

import (
	"fmt"
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func BenchmarkImportBert(b *testing.B) {
	data, err := os.ReadFile("testdata/tiny_bert.onnx")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Import("tiny_bert.onnx", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport10k imports a synthetic model of 10,000 nodes: residual
// blocks of MatMul, Add, Relu and a Shape → Gather → Unsqueeze → Concat →
// Reshape subgraph, over a dynamic batch.
func BenchmarkImport10k(b *testing.B) {
	data := syntheticModel(10000)
	for b.Loop() {
		if _, err := Import("synth.onnx", data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSyntheticModelImports(t *testing.T) {
	if _, err := Import("synth.onnx", syntheticModel(200), Options{}); err != nil {
		t.Fatal(err)
	}
}

// syntheticModel writes a ModelProto of about n nodes.
func syntheticModel(n int) []byte {
	bytesField := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	node := func(op string, ins, outs []string, attrs ...[]byte) []byte {
		var nb []byte
		for _, in := range ins {
			nb = bytesField(nb, 1, []byte(in))
		}
		for _, out := range outs {
			nb = bytesField(nb, 2, []byte(out))
		}
		nb = bytesField(nb, 4, []byte(op))
		for _, a := range attrs {
			nb = bytesField(nb, 5, a)
		}
		return nb
	}
	intAttr := func(name string, v int64) []byte {
		return varint(varint(bytesField(nil, 1, []byte(name)), 3, uint64(v)), 20, attrInt)
	}
	tensorAttr := func(vals []int64) []byte {
		var t []byte
		t = varint(t, 1, uint64(len(vals)))
		t = varint(t, 2, 7)
		for _, v := range vals {
			t = varint(t, 7, uint64(v))
		}
		return varint(bytesField(bytesField(nil, 1, []byte("value")), 5, t), 20, attrTensor)
	}
	valueInfo := func(name string, dims ...any) []byte {
		var shape []byte
		for _, d := range dims {
			var dim []byte
			switch d := d.(type) {
			case int:
				dim = varint(dim, 1, uint64(d))
			case string:
				dim = bytesField(dim, 2, []byte(d))
			}
			shape = bytesField(shape, 1, dim)
		}
		tt := bytesField(varint(nil, 1, 1), 2, shape)
		return bytesField(bytesField(nil, 1, []byte(name)), 2, bytesField(nil, 1, tt))
	}
	var g []byte
	g = bytesField(g, 11, valueInfo("x", "batch", 64))
	g = bytesField(g, 11, valueInfo("w", 64, 64))
	x := "x"
	for i := 0; i*9 < n; i++ {
		p := func(s string) string { return fmt.Sprintf("b%d/%s", i, s) }
		g = bytesField(g, 1, node("MatMul", []string{x, "w"}, []string{p("mm")}))
		g = bytesField(g, 1, node("Add", []string{p("mm"), x}, []string{p("add")}))
		g = bytesField(g, 1, node("Relu", []string{p("add")}, []string{p("relu")}))
		g = bytesField(g, 1, node("Shape", []string{p("relu")}, []string{p("shape")}))
		g = bytesField(g, 1, node("Constant", nil, []string{p("zero")}, tensorAttr([]int64{0})))
		g = bytesField(g, 1, node("Gather", []string{p("shape"), p("zero")}, []string{p("batch")}, intAttr("axis", 0)))
		g = bytesField(g, 1, node("Constant", nil, []string{p("rest")}, tensorAttr([]int64{8, 8})))
		g = bytesField(g, 1, node("Concat", []string{p("batch"), p("rest")}, []string{p("target")}, intAttr("axis", 0)))
		g = bytesField(g, 1, node("Reshape", []string{p("relu"), p("target")}, []string{p("r")}))
		x = p("relu")
	}
	g = bytesField(g, 12, valueInfo(x, "batch", 64))
	m := varint(nil, 1, 8)
	m = bytesField(m, 7, g)
	m = bytesField(m, 8, varint(nil, 2, 17))
	return m
}
