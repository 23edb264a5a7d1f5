package emit

import (
	"fmt"
	"strconv"
	"strings"
)

// Rows are the tables as source text, a row per line with a comment where
// it helps a reader (above the row when it would make the line too long): what both backends print inside their own array
// syntax (both write integer lists as "a, b," and comments as //).
type Rows struct {
	Code, Tensors, Dims, Lists, InputViews, OpArgs, OpStart []string
	// Steps and Storages are each plan's, in the order of Tables.Plans.
	Steps, Storages [][]string
}

// Rows spells t's tables; comment quotes graph-derived text for the
// backend's comments, intLit spells a constant that may not fit 32 bits.
func (m *Model) Rows(comment func(string) string, intLit func(int64) string) Rows {
	t := m.Tables()
	var r Rows
	for _, in := range t.Code {
		r.Code = append(r.Code, strconv.Itoa(in.Op)+", "+intLit(in.A)+", "+strconv.FormatInt(in.B, 10)+",")
	}
	for _, x := range t.Tensors {
		r.Tensors = append(r.Tensors, CommentedRow(IntRow([]int{x.DType, x.Device, len(x.Tensor.Shape), x.Dims}), comment(x.Tensor.Name)))
	}
	r.Dims = Chunks(t.Dims)
	for _, l := range t.Lists {
		r.Lists = append(r.Lists, IntRow(append([]int{len(l)}, l...)))
	}
	for _, v := range t.InputViews {
		r.InputViews = append(r.InputViews, CommentedRow(IntRow([]int{v.Tensor, v.Input, v.Start, v.End}), comment(m.Graph.Tensors[v.Tensor].Name)))
	}
	for _, pt := range t.Plans {
		var steps []string
		for _, s := range pt.Steps {
			steps = append(steps, CommentedRow(IntRow(append([]int{int(s.Kind)}, s.Args...)), s.Comment(comment)))
		}
		r.Steps = append(r.Steps, steps)
		var storages []string
		for i, st := range pt.Storages {
			storages = append(storages, CommentedRow(IntRow(st.Args()), fmt.Sprintf("storage %d: ", i)+comment(st.Owner.Name)))
		}
		r.Storages = append(r.Storages, storages)
	}
	var starts []int
	at := 0
	for i, row := range t.OpArgs {
		starts = append(starts, at)
		at += len(row)
		r.OpArgs = append(r.OpArgs, CommentedRow(IntRow(row), m.Ops[i].Place+": "+comment(m.Ops[i].Kernel)))
	}
	r.OpStart = Chunks(append(starts, at))
	return r
}

// IntRow is "a, b, c," for a table row.
func IntRow(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(x))
		b.WriteByte(',')
	}
	return b.String()
}

// Chunks are xs as rows of up to 16.
func Chunks(xs []int) []string {
	var rows []string
	for len(xs) > 16 {
		rows = append(rows, IntRow(xs[:16]))
		xs = xs[16:]
	}
	if len(xs) > 0 {
		rows = append(rows, IntRow(xs))
	}
	return rows
}
