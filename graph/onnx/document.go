package onnx

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// The format-v1 document the importer builds. It is written by hand (one
// tensor or op per line, fields in a fixed order) so that the file import
// writes is deterministic and easy to read and diff.

type docSymbol struct {
	name     string
	hint     int64
	min, max int64 // max < 0: none
	// bound is set for a run-time size (an op's "sets" sets it): written
	// as {"bound": ...} in place of hint, min and max.
	bound *expr.Expr
	doc   string // what it stands for (narrow.go), "" for most
}

type docTensor struct {
	name   string
	dtype  graph.DType
	shape  []expr.Expr
	viewOf string
	data   []byte // an inline constant's contents
}

type docAttr struct {
	name string
	kind graph.AttrKind
	i    expr.Expr
	f    float64
	b    bool
	s    string
	ints []expr.Expr
}

// docOp is a kernel call, or a loop when loop is set.
type docOp struct {
	kernel  string
	inputs  []string
	outputs []string
	mutates []string
	// sets are the run-time sizes the op sets, each from one of its
	// outputs (an i64 scalar), in order.
	sets  []docSet
	attrs []docAttr
	loop  *docLoop
}

// docSet is one entry of an op's "sets": symbol takes the value the
// kernel writes to output tensor.
type docSet struct {
	symbol, tensor string
}

type docLoop struct {
	count expr.Expr
	body  []*docOp
}

// walkOps calls f on every op of ops, loops' bodies included.
func walkOps(ops []*docOp, f func(*docOp)) {
	for _, op := range ops {
		if op.loop != nil {
			walkOps(op.loop.body, f)
			continue
		}
		f(op)
	}
}

type document struct {
	name    string
	symbols []docSymbol
	tensors []*docTensor
	inputs  []string
	params  []string
	outputs []string
	ops     []*docOp
	// mayAlias holds each kernel's may_alias pairs ([output, input]), for
	// the kernels that have any, in kernelOrder.
	mayAlias    map[string][][2]int
	kernelOrder []string
}

func quote(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a Go string always marshals
	b.Write(q)
}

func writeExpr(b *bytes.Buffer, e expr.Expr) {
	if c, ok := e.IsConst(); ok {
		b.WriteString(strconv.FormatInt(c, 10))
		return
	}
	quote(b, e.String())
}

func writeExprs(b *bytes.Buffer, es []expr.Expr) {
	b.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, e)
	}
	b.WriteByte(']')
}

func writeNames(b *bytes.Buffer, names []string) {
	b.WriteByte('[')
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		quote(b, n)
	}
	b.WriteByte(']')
}

func writeFloat(b *bytes.Buffer, f float64) {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	b.WriteString(s)
	if !bytes.ContainsAny([]byte(s), ".eE") {
		b.WriteString(".0") // keep it a float for the reader
	}
}

func (d *document) json() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"name\": ")
	quote(&b, d.name)
	b.WriteString(",\n  \"symbols\": {")
	for i, s := range d.symbols {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		quote(&b, s.name)
		if s.bound != nil {
			b.WriteString(": {\"bound\": ")
			writeExpr(&b, *s.bound)
			b.WriteString("}")
			continue
		}
		b.WriteString(": {\"hint\": " + strconv.FormatInt(s.hint, 10) + ", \"min\": " + strconv.FormatInt(s.min, 10))
		if s.max >= 0 {
			b.WriteString(", \"max\": " + strconv.FormatInt(s.max, 10))
		}
		if s.doc != "" {
			b.WriteString(", \"doc\": ")
			quote(&b, s.doc)
		}
		b.WriteString("}")
	}
	if len(d.symbols) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("},\n  \"tensors\": {")
	for i, t := range d.tensors {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		quote(&b, t.name)
		b.WriteString(": {")
		if t.viewOf != "" {
			b.WriteString("\"view_of\": ")
			quote(&b, t.viewOf)
		} else {
			b.WriteString("\"dtype\": ")
			quote(&b, string(t.dtype))
		}
		b.WriteString(", \"shape\": ")
		writeExprs(&b, t.shape)
		if t.data != nil {
			b.WriteString(", \"data\": [")
			for i := 0; i < len(t.data)/int(t.dtype.Size()); i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(graph.ElementText(t.dtype, t.data, i))
			}
			b.WriteString("]")
		}
		b.WriteString("}")
	}
	b.WriteString("\n  },\n  \"inputs\": ")
	writeNames(&b, d.inputs)
	if len(d.params) > 0 {
		b.WriteString(",\n  \"params\": ")
		writeNames(&b, d.params)
	}
	b.WriteString(",\n  \"outputs\": ")
	writeNames(&b, d.outputs)
	if len(d.kernelOrder) > 0 {
		b.WriteString(",\n  \"kernels\": {")
		for i, k := range d.kernelOrder {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    ")
			quote(&b, k)
			b.WriteString(": {\"may_alias\": [")
			for j, p := range d.mayAlias[k] {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString("[" + strconv.Itoa(p[0]) + ", " + strconv.Itoa(p[1]) + "]")
			}
			b.WriteString("]}")
		}
		b.WriteString("\n  }")
	}
	b.WriteString(",\n  \"ops\": ")
	writeOps(&b, d.ops, "  ")
	b.WriteString("\n}\n")
	return b.Bytes()
}

// writeOps writes a list of ops, one per line, a loop's body indented
// under it.
func writeOps(b *bytes.Buffer, ops []*docOp, indent string) {
	b.WriteString("[")
	for i, op := range ops {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  " + indent)
		if op.loop != nil {
			b.WriteString("{\"loop\": {\"count\": ")
			writeExpr(b, op.loop.count)
			b.WriteString(", \"body\": ")
			writeOps(b, op.loop.body, indent+"  ")
			b.WriteString("}}")
			continue
		}
		b.WriteString("{\"kernel\": ")
		quote(b, op.kernel)
		b.WriteString(", \"inputs\": ")
		writeNames(b, op.inputs)
		b.WriteString(", \"outputs\": ")
		writeNames(b, op.outputs)
		if len(op.mutates) > 0 {
			b.WriteString(", \"mutates\": ")
			writeNames(b, op.mutates)
		}
		if len(op.sets) > 0 {
			b.WriteString(", \"sets\": {")
			for j, st := range op.sets {
				if j > 0 {
					b.WriteString(", ")
				}
				quote(b, st.symbol)
				b.WriteString(": ")
				quote(b, st.tensor)
			}
			b.WriteString("}")
		}
		if len(op.attrs) > 0 {
			b.WriteString(", \"attrs\": {")
			for j, a := range op.attrs {
				if j > 0 {
					b.WriteString(", ")
				}
				quote(b, a.name)
				b.WriteString(": ")
				writeAttr(b, a)
			}
			b.WriteString("}")
		}
		b.WriteString("}")
	}
	if len(ops) > 0 {
		b.WriteString("\n" + indent)
	}
	b.WriteString("]")
}

func writeAttr(b *bytes.Buffer, a docAttr) {
	switch a.kind {
	case graph.AttrInt:
		if c, ok := a.i.IsConst(); ok {
			b.WriteString(strconv.FormatInt(c, 10))
		} else {
			b.WriteString("{\"expr\": ")
			quote(b, a.i.String())
			b.WriteString("}")
		}
	case graph.AttrFloat:
		writeFloat(b, a.f)
	case graph.AttrBool:
		b.WriteString(strconv.FormatBool(a.b))
	case graph.AttrString:
		quote(b, a.s)
	case graph.AttrInts:
		b.WriteByte('[')
		for i, e := range a.ints {
			if i > 0 {
				b.WriteString(", ")
			}
			if c, ok := e.IsConst(); ok {
				b.WriteString(strconv.FormatInt(c, 10))
			} else {
				b.WriteString("{\"expr\": ")
				quote(b, e.String())
				b.WriteString("}")
			}
		}
		b.WriteByte(']')
	}
}
