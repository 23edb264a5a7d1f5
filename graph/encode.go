package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// JSON writes g as a format-v1 document that Parse reads back to the same
// graph: what a pass that rewrites a graph (graph/fuse) emits, so that its
// result is validated like any file. One tensor or op per line; strides
// only where they are not row-major. A graph given scratch (AddScratch) has
// no format-v1 form: its scratch belongs to a plan, not to the file.
func (g *Graph) JSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n \"name\": ")
	writeString(&b, g.Name)
	b.WriteString(",\n \"symbols\": {")
	for i, s := range g.Symbols {
		sep(&b, i)
		b.WriteString("\n  ")
		writeString(&b, s.Name)
		if s.RunTime() {
			b.WriteString(": {\"bound\": ")
			writeExprValue(&b, *s.Bound)
			b.WriteString("}")
			continue
		}
		fmt.Fprintf(&b, ": {\"hint\": %d, \"min\": %d", s.Hint, s.Min)
		if s.HasMax {
			fmt.Fprintf(&b, ", \"max\": %d", s.Max)
		}
		if s.Doc != "" {
			b.WriteString(", \"doc\": ")
			writeString(&b, s.Doc)
		}
		b.WriteString("}")
	}
	b.WriteString("},\n \"tensors\": {")
	for i, t := range g.Tensors {
		if t.Root == nil {
			return nil, fmt.Errorf("%s: tensor %q is not resolved", g.File, t.Name)
		}
		sep(&b, i)
		b.WriteString("\n  ")
		writeString(&b, t.Name)
		b.WriteString(": ")
		writeTensor(&b, t)
	}
	b.WriteString("},\n \"inputs\": ")
	writeTensorNames(&b, g.Inputs)
	b.WriteString(",\n \"params\": ")
	writeTensorNames(&b, g.Params)
	b.WriteString(",\n \"outputs\": ")
	writeTensorNames(&b, g.Outputs)
	b.WriteString(",\n \"ops\": [")
	if err := writeOpList(&b, g.Ops, "\n  "); err != nil {
		return nil, fmt.Errorf("%s: %w", g.File, err)
	}
	b.WriteString("]")
	if len(g.Traits) > 0 {
		b.WriteString(",\n \"kernels\": {")
		for i, k := range sortedKeys(g.Traits) {
			sep(&b, i)
			b.WriteString("\n  ")
			writeString(&b, k)
			b.WriteString(": {")
			tr := g.Traits[k]
			if tr.Fuse {
				b.WriteString("\"fuse\": true")
			}
			if len(tr.MayAlias) > 0 {
				if tr.Fuse {
					b.WriteString(", ")
				}
				b.WriteString("\"may_alias\": [")
				for j, p := range tr.MayAlias {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "[%d, %d]", p.Out, p.In)
				}
				b.WriteString("]")
			}
			b.WriteString("}")
		}
		b.WriteString("}")
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

func sep(b *bytes.Buffer, i int) {
	if i > 0 {
		b.WriteString(",")
	}
}

func sortedKeys(m map[string]Traits) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same document on every run
	return keys
}

func writeString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a Go string always marshals
	b.Write(q)
}

// writeExprValue writes e as a JSON integer when constant, else as the
// expression string.
func writeExprValue(b *bytes.Buffer, e expr.Expr) {
	if c, ok := e.IsConst(); ok {
		b.WriteString(strconv.FormatInt(c, 10))
		return
	}
	writeString(b, e.String())
}

func writeExprList(b *bytes.Buffer, es []expr.Expr) {
	b.WriteString("[")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExprValue(b, e)
	}
	b.WriteString("]")
}

func writeTensor(b *bytes.Buffer, t *Tensor) {
	b.WriteString("{")
	if t.ViewOf == nil {
		b.WriteString("\"dtype\": ")
		writeString(b, string(t.DType))
		b.WriteString(", ")
	}
	b.WriteString("\"shape\": ")
	writeExprList(b, t.Shape)
	if !rowMajor(t.Shape, t.Strides) {
		b.WriteString(", \"strides\": ")
		writeExprList(b, t.Strides)
	}
	if t.ViewOf != nil {
		b.WriteString(", \"view_of\": ")
		writeString(b, t.ViewOf.Name)
		if c, ok := t.Offset.IsConst(); !ok || c != 0 {
			b.WriteString(", \"offset\": ")
			writeExprValue(b, t.Offset)
		}
	} else if t.Device != "" && t.Device != "cpu" {
		b.WriteString(", \"device\": ")
		writeString(b, t.Device)
	}
	if t.Data != nil {
		b.WriteString(", \"data\": [")
		n := len(t.Data) / int(t.DType.Size())
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ElementText(t.DType, t.Data, i))
		}
		b.WriteString("]")
	}
	b.WriteString("}")
}

// rowMajor reports whether strides are shape's row-major strides, the
// default a file may leave out.
func rowMajor(shape, strides []expr.Expr) bool {
	want := expr.Const(1)
	for d := len(shape) - 1; d >= 0; d-- {
		if !expr.Equal(strides[d], want) {
			return false
		}
		want = expr.Mul(want, shape[d])
	}
	return true
}

func writeTensorNames(b *bytes.Buffer, ts []*Tensor) {
	b.WriteString("[")
	for i, t := range ts {
		if i > 0 {
			b.WriteString(", ")
		}
		writeString(b, t.Name)
	}
	b.WriteString("]")
}

func writeOpList(b *bytes.Buffer, ops []*Op, indent string) error {
	for i, op := range ops {
		sep(b, i)
		b.WriteString(indent)
		if err := writeOp(b, op, indent); err != nil {
			return err
		}
	}
	return nil
}

func writeOp(b *bytes.Buffer, op *Op, indent string) error {
	if op.Loop != nil {
		b.WriteString("{\"loop\": {\"count\": ")
		writeExprValue(b, op.Loop.Count)
		b.WriteString(", \"body\": [")
		if err := writeOpList(b, op.Loop.Body, indent+" "); err != nil {
			return err
		}
		b.WriteString("]}}")
		return nil
	}
	if op.Scratch != nil {
		return fmt.Errorf("%s has scratch, which a graph file cannot hold", op.Label())
	}
	b.WriteString("{\"kernel\": ")
	writeString(b, op.Kernel)
	b.WriteString(", \"inputs\": ")
	writeTensorNames(b, op.Inputs)
	b.WriteString(", \"outputs\": ")
	writeTensorNames(b, op.Outputs)
	if len(op.Attrs) > 0 {
		b.WriteString(", \"attrs\": {")
		for i, a := range op.Attrs {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, a.Name)
			b.WriteString(": ")
			writeAttr(b, a)
		}
		b.WriteString("}")
	}
	if len(op.Inplace) > 0 {
		b.WriteString(", \"inplace\": {")
		for i, ip := range op.Inplace {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, ip.Out.Name)
			b.WriteString(": ")
			writeString(b, ip.In.Name)
		}
		b.WriteString("}")
	}
	if len(op.Mutates) > 0 {
		b.WriteString(", \"mutates\": ")
		writeTensorNames(b, op.Mutates)
	}
	if len(op.Sets) > 0 {
		b.WriteString(", \"sets\": {")
		for i, s := range op.Sets {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, s.Symbol.Name)
			b.WriteString(": ")
			writeString(b, s.Count.Name)
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	return nil
}

// symbolicInt writes a symbolic integer attribute (or list entry): a JSON
// integer when constant, else {"expr": "..."}.
func symbolicInt(b *bytes.Buffer, e expr.Expr) {
	if c, ok := e.IsConst(); ok {
		b.WriteString(strconv.FormatInt(c, 10))
		return
	}
	b.WriteString("{\"expr\": ")
	writeString(b, e.String())
	b.WriteString("}")
}

func writeAttr(b *bytes.Buffer, a Attr) {
	switch a.Kind {
	case AttrInt:
		symbolicInt(b, a.Int)
	case AttrFloat:
		// A float attribute is a number with a point or an exponent.
		s := strconv.FormatFloat(a.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case AttrBool:
		b.WriteString(strconv.FormatBool(a.Bool))
	case AttrString:
		writeString(b, a.Str)
	case AttrInts:
		b.WriteString("[")
		for i, e := range a.Ints {
			if i > 0 {
				b.WriteString(", ")
			}
			symbolicInt(b, e)
		}
		b.WriteString("]")
	}
}
