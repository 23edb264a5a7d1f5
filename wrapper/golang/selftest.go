package golang

import (
	"bytes"
	"embed"
	"fmt"
	"runtime"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

//go:embed vendored/sentinel/sentinel.go vendored/sentinel/device.go
var sentinelSource embed.FS

const selftestModule = "wrapgenselftest"

// SelftestFiles returns a self-contained Go module that runs p's wrapper
// with sentinel kernels at the symbol values env: through Run once and
// through a Runner twice, checking every input of every kernel and every
// output. Its main prints "selftest: ok" and exits 0 only if every check
// passed.
func SelftestFiles(p *plan.Plan, env expr.Env) ([]emit.File, error) {
	wrapperImport := selftestModule + "/wrapper"
	rtImport := wrapperImport + "/wgrt"
	wrapper, err := Generate(p, Options{Package: "wrapper", RuntimeImport: rtImport, Source: p.Graph.Name + ".json", File: "wrapper/wrapper.go"})
	if err != nil {
		return nil, err
	}
	mainSrc, err := selftestMain(p, env, wrapperImport, rtImport)
	if err != nil {
		return nil, err
	}
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	if i := strings.IndexAny(goVersion, " -"); i >= 0 {
		goVersion = goVersion[:i]
	}
	files := []emit.File{
		{Path: "go.mod", Content: []byte("// " + Banner + "\n\nmodule " + selftestModule + "\n\ngo " + goVersion + "\n")},
		{Path: "main.go", Content: mainSrc},
		wrapper[0],
	}
	for _, name := range []string{"sentinel.go", "device.go"} {
		data, err := sentinelSource.ReadFile("vendored/sentinel/" + name)
		if err != nil {
			return nil, err
		}
		// With wrapgen's banner, as every file it writes: what a -keep
		// folder holds is then known to be wrapgen's.
		data = append([]byte("// "+Banner+"\n\n"), bytes.ReplaceAll(data,
			[]byte(`"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"`), []byte(`"`+rtImport+`"`))...)
		files = append(files, emit.File{Path: "sentinel/" + name, Content: data})
	}
	files = append(files, RuntimeFiles("wrapper/wgrt")...)
	return files, nil
}

func selftestMain(p *plan.Plan, env expr.Env, wrapperImport, rtImport string) ([]byte, error) {
	g := p.Graph
	model := emit.New(p)
	n := nameGraph(g, model.Kernels, model.Bound)
	ev := func(e expr.Expr) (int, error) {
		v, err := e.Eval(env)
		return int(v), err
	}
	sentinelImport := selftestModule + "/sentinel"

	// Storages: the plan's buffers (every size bucket has the same), then
	// the inputs.
	var storages []jen.Code
	index := map[*graph.Tensor]int{}
	for _, b := range model.Plan.Buffers {
		size, err := ev(b.Size)
		if err != nil {
			return nil, err
		}
		for _, t := range b.Tensors {
			index[t] = len(storages)
		}
		storages = append(storages, jen.Values(str(b.Owner().Name), jen.Lit(size)))
	}
	// Inputs and params are made by the checker, filled with its pattern;
	// constants hold the wrapper's own data, read but never checked.
	external := append(append(append([]*graph.Tensor(nil), g.Inputs...), g.Params...), g.Constants...)
	for _, t := range external {
		size, err := ev(t.StorageBytes())
		if err != nil {
			return nil, err
		}
		index[t] = len(storages)
		storages = append(storages, jen.Values(str(t.Name), jen.Lit(size)))
	}
	views := jen.Dict{}
	for _, t := range g.Tensors {
		s, ok := index[t.Root]
		if !ok {
			continue // never touched by any op
		}
		off, err := ev(expr.Scale(t.RootOffset(), t.DType.Size()))
		if err != nil {
			return nil, err
		}
		views[str(t.Name)] = jen.Values(jen.Lit(s), jen.Lit(off))
	}
	forget := map[int][]int{}
	for op, bufs := range model.ForgetAfter() {
		for _, b := range bufs {
			forget[op] = append(forget[op], index[b.Owner()])
		}
	}
	forgetDict := jen.Dict{}
	for op, ss := range forget {
		var lits []jen.Code
		for _, s := range ss {
			lits = append(lits, jen.Lit(s))
		}
		forgetDict[jen.Lit(op)] = jen.Values(lits...)
	}

	var permits []jen.Code
	for _, a := range model.AliasPermits() {
		permits = append(permits, jen.Values(jen.Lit(a.Op), jen.Lit(a.Out), jen.Lit(a.In)))
	}

	made := func(t *graph.Tensor) (jen.Code, error) {
		var shape, strides []jen.Code
		for d := range t.Shape {
			sz, err1 := ev(t.Shape[d])
			st, err2 := ev(t.Strides[d])
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s %s at %v: %v %v", t.Role(), t.Name, env, err1, err2)
			}
			shape, strides = append(shape, jen.Lit(sz)), append(strides, jen.Lit(st))
		}
		return field(n.tensor[t], jen.Id("c").Dot("Input").Call(str(t.Name), jen.Qual(rtImport, dtypeConst(t.DType)), str(t.Device),
			jen.Index().Int().Values(shape...), jen.Index().Int().Values(strides...))), nil
	}
	var inFields, paramFields, checkParams []jen.Code
	for _, t := range g.Inputs {
		fd, err := made(t)
		if err != nil {
			return nil, err
		}
		inFields = append(inFields, fd)
	}
	for _, t := range g.Params {
		fd, err := made(t)
		if err != nil {
			return nil, err
		}
		paramFields = append(paramFields, fd)
		checkParams = append(checkParams, jen.If(jen.Err().Op(":=").Id("c").Dot("CheckParam").Call(str(t.Name), jen.Id("p").Dot(n.tensor[t])), jen.Err().Op("!=").Nil()).Block(
			jen.Id("fail").Call(jen.Lit("params"), jen.Err())))
	}
	for _, s := range g.Symbols {
		if model.CallerGives(s) {
			inFields = append(inFields, field(n.symbol[s.Name], jen.Lit(int(env[s.Name]))))
		}
	}
	var checkOuts []jen.Code
	for _, t := range g.Outputs {
		checkOuts = append(checkOuts, jen.If(jen.Err().Op(":=").Id("c").Dot("CheckOutput").Call(str(t.Name), jen.Id("out").Dot(n.tensor[t])), jen.Err().Op("!=").Nil()).Block(
			jen.Id("fail").Call(jen.Id("pass"), jen.Err())))
	}

	var devices []jen.Code
	for _, d := range g.OtherDevices() {
		devices = append(devices, str(d))
	}

	f := jen.NewFile("main")
	f.HeaderComment(Banner)
	f.HeaderComment(fmt.Sprintf("Selftest of graph %s at %s.", quote.GoComment(g.Name), envText(g, env)))
	importAs(f, rtImport, "wgrt")
	f.Func().Id("main").Params().Block(
		jen.Id("c").Op(":=").Qual(sentinelImport, "New").Call(
			jen.Index().Qual(sentinelImport, "Storage").Values(storages...),
			jen.Map(jen.String()).Qual(sentinelImport, "View").Values(views),
			jen.Map(jen.Int()).Index().Int().Values(forgetDict),
		),
		jen.Id("c").Dot("Permit").Call(jen.Index().Index(jen.Lit(3)).Int().Values(permits...)),
		jen.Id("p").Op(":=").Op("&").Qual(wrapperImport, "Params").Values(paramFields...),
		jen.Id("in").Op(":=").Op("&").Qual(wrapperImport, "Inputs").Values(inFields...),
		jen.Id("k").Op(":=").Qual(wrapperImport, "KernelsFunc").Call(jen.Id("c").Dot("Call")),
		jen.Id("opts").Op(":=").Qual(wrapperImport, "Options").Values(jen.Id("Allocators").Op(":").Id("c").Dot("Allocators").Call(devices...)),
		jen.Id("pass").Op(":=").Lit("Run"),
		jen.Id("c").Dot("BeginCall").Call(),
		jen.List(jen.Id("out"), jen.Err()).Op(":=").Qual(wrapperImport, "RunWith").Call(jen.Id("k"), jen.Id("p"), jen.Id("in"), jen.Nil(), jen.Id("opts")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("fail").Call(jen.Id("pass"), jen.Err())),
		jen.Block(checkOuts...),
		jen.List(jen.Id("r"), jen.Err()).Op(":=").Qual(wrapperImport, "NewRunner").Call(jen.Id("p"), jen.Id("opts")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("fail").Call(jen.Lit("NewRunner"), jen.Err())),
		jen.Defer().Id("r").Dot("Close").Call(),
		jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Lit(2), jen.Id("i").Op("++")).Block(
			jen.Id("pass").Op("=").Qual("fmt", "Sprintf").Call(jen.Lit("Runner call %d"), jen.Id("i").Op("+").Lit(1)),
			jen.Id("out").Op("=").Op("&").Qual(wrapperImport, "Outputs").Values(),
			jen.Id("c").Dot("BeginCall").Call(),
			jen.If(jen.Err().Op(":=").Id("r").Dot("Run").Call(jen.Id("k"), jen.Id("in"), jen.Id("out")), jen.Err().Op("!=").Nil()).Block(jen.Id("fail").Call(jen.Id("pass"), jen.Err())),
			jen.Block(checkOuts...),
		),
		jen.Block(checkParams...),
		jen.If(jen.Err().Op(":=").Id("c").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(jen.Id("fail").Call(jen.Lit("checks"), jen.Err())),
		jen.Qual("fmt", "Printf").Call(jen.Lit("selftest: ok: graph %s at %s: %d kernel calls, %d bytes written and %d read by sentinel kernels\n"),
			str(g.Name), str(envText(g, env)), jen.Id("c").Dot("Calls"), jen.Id("c").Dot("BytesWrote"), jen.Id("c").Dot("BytesRead")),
		jen.If(jen.Id("c").Dot("NeverWrittenBytes").Op(">").Lit(0)).Block(
			jen.Qual("fmt", "Printf").Call(jen.Lit("selftest: note: kernels read %d bytes that no op wrote since their storage was allocated: the graph reads undefined memory (its mistake, or a view read over gaps), not the plan's\n"),
				jen.Id("c").Dot("NeverWrittenBytes"))),
	)
	f.Func().Id("fail").Params(jen.Id("pass").String(), jen.Err().Error()).Block(
		jen.Qual("fmt", "Fprintf").Call(jen.Qual("os", "Stderr"), jen.Lit("selftest: FAIL (%s): %v\n"), jen.Id("pass"), jen.Err()),
		jen.Qual("os", "Exit").Call(jen.Lit(1)),
	)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func envText(g *graph.Graph, env expr.Env) string {
	var parts []string
	for _, s := range g.Symbols {
		parts = append(parts, fmt.Sprintf("%s=%d", s.Name, env[s.Name]))
	}
	if len(parts) == 0 {
		return "(no symbols)"
	}
	return strings.Join(parts, ", ")
}
