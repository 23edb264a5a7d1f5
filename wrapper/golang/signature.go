package golang

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// signature emits Signature, InputsFrom and Outputs.Map: what a caller that
// learns the model at run time needs to drive the wrapper by name.
func (w *gen) signature(f *jen.File) {
	specs := func(ts []*graph.Tensor) jen.Code {
		var rows []string
		for _, t := range ts {
			dims := make([]string, len(t.Shape))
			for i, s := range t.Shape {
				dims[i] = strconv.Quote(s.String())
			}
			row := []emit.Item{{Text: "Name: " + quote.Go(t.Name)}, {Text: "DType: wgrt." + dtypeConst(t.DType)},
				{Text: "Shape: ", List: braces("[]string", dims)}, {Text: "Device: " + quote.Go(t.Device)}}
			rows = append(rows, (&emit.List{Open: "{", Close: "}", Items: row, Fill: true, Hug: true}).Format("\t\t", "\t", 8, 1)+",")
		}
		return jen.Id(literal("[]wgrt.TensorSpec", rows))
	}
	var unbound []string
	for _, s := range w.g.Symbols {
		if w.model.CallerGives(s) {
			unbound = append(unbound, quote.Go(s.Name))
		}
	}
	doc(f, "signature is what Signature returns.")
	f.Var().Id("signature").Op("=").Qual(w.rt, "Signature").Values(
		jen.Line().Id("Graph").Op(":").Add(str(w.g.Name)),
		jen.Line().Id("Inputs").Op(":").Add(specs(w.g.Inputs)),
		jen.Line().Id("Params").Op(":").Add(specs(w.g.Params)),
		jen.Line().Id("Outputs").Op(":").Add(specs(w.g.Outputs)),
		jen.Line().Id("Symbols").Op(":").Id(braces("[]string", unbound).Format("\t", "\t", 4+len("Symbols: "), 1)),
		jen.Line(),
	)
	docf(f, "Signature describes graph %s's inputs, params and outputs (names,\n"+
		"dtypes, symbolic shapes) and the symbols no input gives. Do not modify it.", quote.GoComment(w.g.Name))
	f.Func().Id("Signature").Params().Qual(w.rt, "Signature").Block(jen.Return(jen.Id("signature")))

	var fields []jen.Code // in the order Inputs declares them
	for i, t := range w.g.Inputs {
		fields = append(fields, field(w.n.tensor[t], jen.Id("ts").Index(jen.Lit(i))))
	}
	picked := jen.Id("ts")
	if len(w.g.Inputs) == 0 {
		picked = jen.Id("_") // still called: it reports tensors given for no input
	}
	body := []jen.Code{
		jen.List(picked, jen.Err()).Op(":=").Qual(w.rt, "PickByName").Call(str(w.g.Name), jen.Lit("input"), jen.Id("program").Dot("InputNames"), jen.Id("tensors")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		fit(placeStatement, 0, func(multi bool) *jen.Statement {
			return jen.Id("in").Op(":=").Op("&").Id("Inputs").Add(list("{", "}", multi, fields...))
		}),
	}
	for _, s := range w.g.Symbols {
		if !w.model.CallerGives(s) {
			continue
		}
		body = append(body, jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("symbols").Index(str(s.Name)), jen.Id("ok")).Block(
			jen.Id("in").Dot(w.n.symbol[s.Name]).Op("=").Id("v"),
		).Else().Block(jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(str(w.g.Name+": symbol "+s.Name+" is not given")))))
	}
	body = append(body, jen.Return(jen.Id("in"), jen.Nil()))
	doc(f, "InputsFrom takes the inputs from tensors by name, without copying, and\n"+
		"the symbols no input gives from symbols; every missing or unknown\n"+
		"input is reported in one error.")
	f.Func().Id("InputsFrom").Params(jen.Id("tensors").Map(jen.String()).Add(w.tensorType()), jen.Id("symbols").Map(jen.String()).Int()).Params(jen.Op("*").Id("Inputs"), jen.Error()).Block(body...)

	var outs []jen.Code // in the order Outputs declares them
	for _, t := range w.g.Outputs {
		outs = append(outs, jen.Add(str(t.Name)).Op(":").Id("o").Dot(w.n.tensor[t]))
	}
	doc(f, "Map returns the outputs by name.")
	f.Func().Params(jen.Id("o").Op("*").Id("Outputs")).Id("Map").Params().Map(jen.String()).Add(w.tensorType()).Block(
		fit(placeStatement, 0, func(multi bool) *jen.Statement {
			return jen.Return(jen.Map(jen.String()).Add(w.tensorType()).Add(list("{", "}", multi, outs...)))
		}),
	)
}
