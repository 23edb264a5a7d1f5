package golang

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// params emits Params, LoadParams, ParamsFrom and frame.bindParams: the
// tensors bound once for many calls, loaded by name.
func (w *gen) params(f *jen.File) {
	var fields, ptrs []jen.Code
	for _, t := range w.g.Params {
		fields = append(fields, jen.Id(w.n.tensor[t]).Add(w.tensorType()).Comment(emit.TensorDoc(t, quote.GoComment)))
		ptrs = append(ptrs, jen.Op("&").Id("p").Dot(w.n.tensor[t]))
	}
	name := quote.GoComment(w.g.Name)
	docf(f, "Params are the tensors graph %s reads on every call but binds once (its\n"+
		"weights), by name; the wrapper never writes them. Make them with\n"+
		"LoadParams or ParamsFrom, which check every one.", name)
	f.Type().Id("Params").Struct(fields...)
	doc(f, "LoadParams reads the params from a safetensors file (as `wrapgen import\n"+
		"-weights` writes it), by name, and reports every missing, extra,\n"+
		"mis-typed or mis-shaped tensor at once.")
	f.Func().Id("LoadParams").Params(jen.Id("path").String()).Params(jen.Op("*").Id("Params"), jen.Error()).Block(
		jen.List(jen.Id("ts"), jen.Err()).Op(":=").Qual(w.rt, "LoadSafetensors").Call(jen.Id("path")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("ParamsFrom").Call(jen.Id("ts"))),
	)
	doc(f, "ParamsFrom takes the params from tensors by name (embedded weights:\n"+
		"wgrt.ParseSafetensors of the bytes), without copying, and reports every\n"+
		"missing, extra, mis-typed or mis-shaped tensor at once.")
	f.Func().Id("ParamsFrom").Params(jen.Id("tensors").Map(jen.String()).Add(w.tensorType())).Params(jen.Op("*").Id("Params"), jen.Error()).Block(
		jen.Id("p").Op(":=").New(jen.Id("Params")),
		fit(placeStatement, 0, func(multi bool) *jen.Statement {
			return jen.If(jen.Err().Op(":=").Qual(w.rt, "CollectParams").Call(jen.Op("&").Id("program"), jen.Id("tensors"), jen.Index().Op("*").Add(w.tensorType()).Add(list("{", "}", multi, ptrs...))),
				jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
		}),
		jen.Return(jen.Id("p"), jen.Nil()),
	)
	doc(f, "bindParams checks the params and keeps their memory for the calls that\n"+
		"follow; p may be nil when the graph has none.")
	body := []jen.Code{jen.If(jen.Id("p").Op("==").Nil()).Block(jen.Id("p").Op("=").New(jen.Id("Params")))}
	body = append(body, fit(placeStatement, 0, func(multi bool) *jen.Statement {
		return jen.Return(jen.Id("f").Dot("BindParams").Call(jen.Op("&").Id("program"), jen.Index().Op("*").Add(w.tensorType()).Add(list("{", "}", multi, ptrs...))))
	}))
	f.Func().Params(jen.Id("f").Op("*").Id("frame")).Id("bindParams").Params(jen.Id("p").Op("*").Id("Params")).Error().Block(body...)
}

// constRows are the constants' contents as []byte literals, one per row,
// each with a comment saying what it is: a long one is a sum of string
// literals of constChunk bytes, one per line, below its comment.
func constRows(ts []*graph.Tensor) []string {
	var out []string
	for _, t := range ts {
		var parts []string
		for data := t.Data; len(data) > 0 || len(parts) == 0; {
			n := min(len(data), constChunk)
			parts = append(parts, quote.Go(string(data[:n])))
			data = data[n:]
		}
		row := "[]byte(" + strings.Join(parts, " +\n") + "),"
		if len(parts) > 1 {
			out = append(out, "// "+strings.Join(emit.WrapText(emit.ConstDoc(t, quote.GoComment), emit.Width-16), "\n// ")+"\n"+row)
			continue
		}
		out = append(out, emit.CommentedRow(row, emit.ConstDoc(t, quote.GoComment)))
	}
	return out
}

// constChunk is how many bytes of a constant a line holds: 32 bytes spell
// at most 128 characters, a whole number of elements of any dtype.
const constChunk = 32
