// Package cpp emits a C++17 wrapper for a memory plan from the text/template
// sources in templates/: a header with a Kernels abstract class, Inputs,
// Outputs, Run and Runner, and a source file that checks the inputs and runs
// the plan's lines over pools of bytes. The runtime header is written
// beside them.
package cpp

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"text/template"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/templates"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/ident"
	"github.com/wrapgen/wrapgen/wrapper/quote"
)

// RuntimeHeader is the name of the runtime header generated code includes.
const RuntimeHeader = "wrapgen_runtime.h"

// Options say how the files are named.
type Options struct {
	Source string // the graph file as the user names it, for the header
}

var tmpl = template.Must(template.ParseFS(templates.FS, "cpp_*.tmpl"))

// Runtime returns the runtime header.
func Runtime() emit.File {
	data, err := templates.FS.ReadFile(RuntimeHeader)
	if err != nil {
		panic(err) // embedded at build time
	}
	return emit.File{Path: RuntimeHeader, Content: data}
}

// Generate returns <name>.h and <name>.cc for p. A graph whose names cannot
// become C++ identifiers gives a graph.ErrorList.
func Generate(p *plan.Plan, opts Options) ([]emit.File, error) {
	pr := emit.New(p)
	n := nameGraph(p.Graph, pr.Kernels)
	if pr.MaxRank > 8 {
		n.probs = append(n.probs, &graph.Problem{File: p.Graph.File, Place: "tensors",
			Msg: fmt.Sprintf("a tensor has rank %d; the C++ runtime supports rank up to 8 (wrapgen::kMaxRank)", pr.MaxRank)})
	}
	if len(n.probs) > 0 {
		return nil, n.probs
	}
	g := &gen{p: p, g: p.Graph, n: n, pr: pr}
	src := opts.Source
	if src == "" {
		src = p.Graph.File
	}
	base := FileBase(n.namespace)
	d := &fileData{
		SourceDoc: quote.CppComment(src), GraphDoc: quote.CppComment(p.Graph.Name), GraphLit: quote.Cpp(p.Graph.Name), Namespace: n.namespace, Guard: "WRAPGEN_" + strings.ToUpper(base) + "_H_",
		HeaderFile: base + ".h", Plan: fmt.Sprintf("%s, memory pools %s, align %d", p.StrategyText(), p.Mode, p.Align),
		NumPools: len(p.Pools), Align: p.Align, NumSymbols: len(p.Graph.Symbols), MaxArgs: pr.MaxArgs,
	}
	g.header(d)
	g.tables(d)
	d.Bind = g.bind()
	d.Run = g.run()
	d.NumInts = pr.IntAttrs.NumValues
	var h, cc bytes.Buffer
	if err := tmpl.ExecuteTemplate(&h, "cpp_header.h.tmpl", d); err != nil {
		return nil, fmt.Errorf("cpp: %w (a bug in wrapgen)", err)
	}
	if err := tmpl.ExecuteTemplate(&cc, "cpp_source.cc.tmpl", d); err != nil {
		return nil, fmt.Errorf("cpp: %w (a bug in wrapgen)", err)
	}
	return []emit.File{{Path: base + ".h", Content: h.Bytes()}, {Path: base + ".cc", Content: cc.Bytes()}}, nil
}

// maxFileBase bounds the name of the generated files (without .h/.cc), far
// below any filesystem's 255-byte limit once a temporary suffix is added.
const maxFileBase = 64

// FileBase is the name of the generated .h and .cc: the graph's namespace,
// or, when that is longer than maxFileBase, its first 55 characters, "_"
// and 8 hex digits of its FNV-1a hash, so distinct long names stay apart.
func FileBase(namespace string) string {
	if len(namespace) <= maxFileBase {
		return namespace
	}
	h := fnv.New32a()
	h.Write([]byte(namespace))
	return fmt.Sprintf("%s_%08x", namespace[:maxFileBase-9], h.Sum32())
}

type fileData struct {
	// SourceDoc and GraphDoc are for comments, GraphLit for string literals.
	SourceDoc, GraphDoc, GraphLit, Namespace, Guard, HeaderFile, Plan string
	Kernels                                                           []kernelDecl
	Inputs, Outputs                                                   []fieldDecl
	OpNames, IntLists                                                 []listDecl
	Ops                                                               []string
	NumPools, NumSymbols, NumInts, MaxArgs                            int
	Align                                                             int64
	PoolDevices                                                       string
	PoolDocs                                                          []string
	Tensors                                                           []string
	Bind, Run                                                         []string
}

type kernelDecl struct{ Doc, Method, Params string }
type fieldDecl struct{ Type, Name, Doc string }
type listDecl struct{ Var, List string }

type gen struct {
	p  *plan.Plan
	g  *graph.Graph
	n  *names
	pr *emit.Program
	// constVar names the array of each non-empty constant int list (C++
	// has no empty arrays), by the list as emit.ConstList writes it.
	constVar map[string]string
	used     map[string]bool
}

func (g *gen) expr(e expr.Expr) string {
	st := expr.CppStyle(func(s string) string {
		g.used[s] = true
		return g.n.symbol[s]
	}, "wrapgen::FloorDiv", "wrapgen::Mod")
	st.Int = intLiteral
	st.Max = func(a []string) string { return nest("std::max<int64_t>", a) }
	st.Min = func(a []string) string { return nest("std::min<int64_t>", a) }
	return e.Format(st)
}

// nest applies the binary fn to any number of arguments: one is itself,
// more fold from the right (std::max has no one- or three-argument form
// that takes mixed expressions).
func nest(fn string, args []string) string {
	if len(args) == 1 {
		return "(" + args[0] + ")"
	}
	return fn + "(" + args[0] + ", " + nest(fn, args[1:]) + ")"
}

// intLiteral spells an int64 as C++: LL past 32 bits, and INT64_MIN as an
// expression, since 9223372036854775808 is no int64 literal and -Wall
// rejects it.
func intLiteral(c int64) string {
	switch {
	case c == math.MinInt64:
		return "(-9223372036854775807LL - 1)"
	case c > math.MaxInt32 || c < math.MinInt32:
		return strconv.FormatInt(c, 10) + "LL"
	}
	return strconv.FormatInt(c, 10)
}

// withSymbols declares, before body, the symbol locals body used.
func (g *gen) withSymbols(build func() []string) []string {
	g.used = map[string]bool{}
	body := build()
	var decls []string
	for i, s := range g.g.Symbols {
		if g.used[s.Name] {
			decls = append(decls, fmt.Sprintf("const int64_t %s = sym[%d];", g.n.symbol[s.Name], i))
		}
	}
	return append(decls, body...)
}

func dtypeConst(d graph.DType) string {
	if d == "bool" {
		return "wrapgen::DType::kBool"
	}
	return "wrapgen::DType::k" + strings.ToUpper(string(d))
}

func (g *gen) header(d *fileData) {
	for _, k := range g.pr.Kernels {
		doc := fmt.Sprintf("%s is kernel %s: %d output(s), %d input(s)", g.n.kernel[k.Name], quote.CppComment(k.Name), k.Outputs, k.Inputs)
		if k.Variadic {
			doc = fmt.Sprintf("%s is kernel %s: %d output(s), inputs as one span (ops pass %d or more)", g.n.kernel[k.Name], quote.CppComment(k.Name), k.Outputs, k.Inputs)
		}
		var ps []string
		for i := 0; i < k.Outputs; i++ {
			ps = append(ps, fmt.Sprintf("const wrapgen::Tensor& out%d", i))
		}
		if k.Variadic {
			ps = append(ps, "wrapgen::Span<wrapgen::Tensor> ins")
		} else {
			for i := 0; i < k.Inputs; i++ {
				ps = append(ps, fmt.Sprintf("const wrapgen::Tensor& in%d", i))
			}
		}
		for i, a := range k.Attrs {
			ps = append(ps, attrType(a.Kind)+" "+g.n.attr[k.Name][i])
		}
		doc += k.AliasDoc()
		d.Kernels = append(d.Kernels, kernelDecl{Doc: doc + ".", Method: g.n.kernel[k.Name], Params: strings.Join(ps, ", ")})
	}
	for _, t := range g.g.Inputs {
		d.Inputs = append(d.Inputs, fieldDecl{"wrapgen::Tensor", g.n.field[t], emit.TensorDoc(t, quote.CppComment)})
	}
	for _, s := range g.g.Symbols {
		if _, ok := g.pr.Bound[s.Name]; !ok {
			d.Inputs = append(d.Inputs, fieldDecl{"int64_t", g.n.symField[s.Name], "symbol " + quote.CppComment(s.Name) + ", which no input's shape gives"})
		}
	}
	for _, t := range g.g.Outputs {
		d.Outputs = append(d.Outputs, fieldDecl{"wrapgen::Tensor", g.n.field[t], emit.TensorDoc(t, quote.CppComment)})
	}
}

func attrType(k graph.AttrKind) string {
	switch k {
	case graph.AttrInt:
		return "int64_t"
	case graph.AttrFloat:
		return "double"
	case graph.AttrBool:
		return "bool"
	case graph.AttrString:
		return "const char*"
	default:
		return "wrapgen::Span<int64_t>"
	}
}

func quoteList(ts []*graph.Tensor) string {
	var qs []string
	for _, t := range ts {
		qs = append(qs, quote.Cpp(t.Name))
	}
	return strings.Join(qs, ", ")
}

// tables fills the op table, pool devices, constant int lists and members.
func (g *gen) tables(d *fileData) {
	for i, op := range g.pr.Ops {
		ref := func(kind string, ts []*graph.Tensor) string {
			if len(ts) == 0 {
				return "nullptr, 0"
			}
			v := ident.Numbered("k_op_"+kind, i)
			d.OpNames = append(d.OpNames, listDecl{v, quoteList(ts)})
			return fmt.Sprintf("%s, %d", v, len(ts))
		}
		in, out, mut := ref("inputs", op.Args()), ref("outputs", op.Outputs), ref("mutates", op.Mutates)
		d.Ops = append(d.Ops, fmt.Sprintf("%d, %s, %s, %s, %s, %s", i, quote.Cpp(op.Place), quote.Cpp(op.Kernel), in, out, mut))
	}
	var devs []string
	for i, pool := range g.p.Pools {
		devs = append(devs, quote.Cpp(pool.Device))
		d.PoolDocs = append(d.PoolDocs, fmt.Sprintf("pool %d on %s: %s bytes, %d storages, steps [%d, %d)", i, quote.CppComment(pool.Device), pool.Size, len(pool.Buffers), pool.Begin, pool.End))
	}
	d.PoolDevices = strings.Join(append(devs, `""`), ", ")
	g.constVar = map[string]string{}
	for _, lit := range g.pr.IntAttrs.Consts {
		if lit != "" {
			v := ident.Numbered("k_attr_ints", len(g.constVar))
			g.constVar[lit] = v
			d.IntLists = append(d.IntLists, listDecl{v, lit})
		}
	}
	for _, t := range g.g.Tensors {
		d.Tensors = append(d.Tensors, g.n.member[t])
	}
}

func (g *gen) fail(prefix string) string {
	return fmt.Sprintf("if (!s.ok()) return wrapgen::Status::Error(%s + s.message());", quote.Cpp(g.g.Name+": "+prefix))
}

// bind emits Frame::Bind.
func (g *gen) bind() []string {
	var pre []string
	pre = append(pre, "wrapgen::Status s;")
	nBound := 0
	for _, s := range g.g.Symbols {
		if _, ok := g.pr.Bound[s.Name]; ok {
			nBound++
		}
	}
	if nBound > 0 {
		pre = append(pre, fmt.Sprintf("bool bound[%d] = {};", nBound))
	}
	bi := 0
	for i, s := range g.g.Symbols {
		if b, ok := g.pr.Bound[s.Name]; ok {
			pre = append(pre, fmt.Sprintf("s = wrapgen::BindSymbol(&sym[%d], &bound[%d], %s, %s, in.%s, %d, %d, %s, %s);",
				i, bi, quote.Cpp(s.Name), quote.Cpp(b.Input.Name), g.n.field[b.Input], len(b.Input.Shape), b.Dim, intLiteral(b.Scale), intLiteral(b.Bias)), g.fail("input "))
			bi++
		} else {
			pre = append(pre, fmt.Sprintf("sym[%d] = in.%s;", i, g.n.symField[s.Name]))
		}
		max := int64(-1)
		if s.HasMax {
			max = s.Max
		}
		pre = append(pre, fmt.Sprintf("s = wrapgen::CheckRange(%s, sym[%d], %s, %s);", quote.Cpp(s.Name), i, intLiteral(s.Min), intLiteral(max)), g.fail(""))
	}
	body := g.withSymbols(func() []string {
		var st []string
		for _, t := range g.g.Tensors {
			var shape, strides []string
			for i := range t.Shape {
				shape = append(shape, g.expr(t.Shape[i]))
				strides = append(strides, g.expr(t.Strides[i]))
			}
			st = append(st, fmt.Sprintf("wrapgen::SetLayout(&%s, %s, %s, {%s}, {%s});", g.n.member[t], dtypeConst(t.DType), quote.Cpp(t.Device),
				strings.Join(shape, ", "), strings.Join(strides, ", ")))
		}
		for _, t := range g.g.Inputs {
			st = append(st, fmt.Sprintf("s = wrapgen::CheckTensor(%s, in.%s, %s);", quote.Cpp(t.Name), g.n.field[t], g.n.member[t]), g.fail("input "))
		}
		for _, t := range g.g.Tensors {
			if t.Root == nil || !t.Root.Input {
				continue
			}
			o, _ := emit.ViewBytes(t, expr.Const(0))
			st = append(st, fmt.Sprintf("%s.data = in.%s.data + (%s);", g.n.member[t], g.n.field[t.Root], g.expr(o)),
				fmt.Sprintf("%s.bytes = %s;", g.n.member[t], g.expr(t.StorageBytes())))
		}
		for _, t := range g.g.Outputs {
			st = append(st, fmt.Sprintf("if (out.%s.data != nullptr) {", g.n.field[t]),
				fmt.Sprintf("  s = wrapgen::CheckTensor(%s, out.%s, %s);", quote.Cpp(t.Name), g.n.field[t], g.n.member[t]),
				"  "+g.fail("output buffer "), "}")
		}
		for _, op := range g.pr.Ops {
			for i, a := range op.Attrs {
				sym, ok := g.pr.IntAttrs.Symbolic(op, i)
				if !ok {
					continue
				}
				for j, x := range a.Ints {
					st = append(st, fmt.Sprintf("ints[%d] = %s;", sym.Offset+j, g.expr(x)))
				}
			}
		}
		return st
	})
	return append(pre, body...)
}

// run emits Frame::Run: the plan's lines.
func (g *gen) run() []string {
	body := g.withSymbols(func() []string {
		var st []string
		indent := ""
		add := func(lines ...string) {
			for _, l := range lines {
				st = append(st, indent+l)
			}
		}
		for _, s := range g.pr.Steps {
			switch s.Kind {
			case emit.Acquire:
				g.poolCreate(s.Pool, add)
			case emit.Release:
				i := s.PoolIndex
				add(fmt.Sprintf("pools->Release(%d, kPoolDevices[%d], pool[%d], pool_bytes[%d], kAlign);", i, i, i, i),
					fmt.Sprintf("pool[%d] = nullptr;", i))
			case emit.View:
				m := g.n.member[s.Tensor]
				add(fmt.Sprintf("%s.data = pool[%d] + %s;", m, s.PoolIndex, g.expr(s.Start)),
					fmt.Sprintf("%s.bytes = %s;", m, g.expr(s.Bytes)))
			case emit.Unview:
				add(fmt.Sprintf("%s.data = nullptr;", g.n.member[s.Tensor]))
			case emit.Reuse:
				add(fmt.Sprintf("// %s takes over the storage of %s in place.", quote.CppComment(s.Tensor.Name), quote.CppComment(s.From.Name)))
			case emit.Call:
				add(g.call(s.Op)...)
			case emit.Loop:
				add(fmt.Sprintf("// %s: loop", s.Op.Place), fmt.Sprintf("for (int64_t %s = 0; %s < %s; %s++) {", s.Var, s.Var, g.expr(s.Count), s.Var))
				indent += "  "
			case emit.EndLoop:
				indent = indent[2:]
				add("}")
			}
		}
		for _, pool := range g.p.Pools {
			if !emit.IsOutputPool(pool) {
				continue
			}
			i := g.pr.PoolIndex[pool]
			own := ident.Numbered("own_pool", i)
			add(fmt.Sprintf("std::shared_ptr<void> %s;", own),
				fmt.Sprintf("if (!caller_pool[%d]) %s = pools->Own(%d, kPoolDevices[%d], pool[%d], pool_bytes[%d], kAlign);", i, own, i, i, i, i),
				fmt.Sprintf("pool[%d] = nullptr;  // handed to the caller with the outputs", i))
		}
		for _, t := range g.g.Outputs {
			owner := "nullptr"
			if pool := g.pr.OutputPool(t); pool != nil {
				owner = ident.Numbered("own_pool", g.pr.PoolIndex[pool])
			}
			add(fmt.Sprintf("wrapgen::Deliver(&out->%s, %s, %s);", g.n.field[t], g.n.member[t], owner))
		}
		return st
	})
	pre := []string{"wrapgen::Status s;", "(void)s;"}
	return append(pre, body...)
}

func (g *gen) poolCreate(pool *plan.Pool, add func(...string)) {
	i := g.pr.PoolIndex[pool]
	size := g.expr(pool.Size)
	acquire := []string{
		fmt.Sprintf("pool_bytes[%d] = %s;", i, size),
		fmt.Sprintf("pool[%d] = pools->Acquire(%d, kPoolDevices[%d], pool_bytes[%d], kAlign, &s);", i, i, i, i),
		g.fail(fmt.Sprintf("pool %d: ", i)),
	}
	add(fmt.Sprintf("// pool %d: %s bytes on %s", i, pool.Size, quote.CppComment(pool.Device)))
	t := g.pr.Direct[pool]
	if t == nil {
		add(acquire...)
		return
	}
	n := g.expr(pool.Buffers[0].Size)
	add(fmt.Sprintf("if (out->%s.data != nullptr && out->%s.bytes >= (%s)) {", g.n.field[t], g.n.field[t], n),
		"  // The caller's output buffer is the pool.",
		fmt.Sprintf("  pool[%d] = out->%s.data;", i, g.n.field[t]),
		fmt.Sprintf("  pool_bytes[%d] = %s;", i, n),
		fmt.Sprintf("  caller_pool[%d] = true;", i),
		"} else {")
	for _, l := range acquire {
		add("  " + l)
	}
	add("}")
}

// call emits one kernel call.
func (g *gen) call(op *graph.Op) []string {
	ix := g.pr.OpIndex[op]
	var args, pre []string
	for _, t := range op.Outputs {
		args = append(args, g.n.member[t])
	}
	if g.pr.Kernel[op.Kernel].Variadic {
		for j, t := range op.Args() {
			pre = append(pre, fmt.Sprintf("args[%d] = %s;", j, g.n.member[t]))
		}
		args = append(args, fmt.Sprintf("wrapgen::Span<wrapgen::Tensor>(args, %d)", len(op.Args())))
	} else {
		for _, t := range op.Args() {
			args = append(args, g.n.member[t])
		}
	}
	for i, a := range op.Attrs {
		switch a.Kind {
		case graph.AttrInt:
			args = append(args, "static_cast<int64_t>("+g.expr(a.Int)+")")
		case graph.AttrFloat:
			args = append(args, emit.FloatLiteral(a.Float))
		case graph.AttrBool:
			args = append(args, strconv.FormatBool(a.Bool))
		case graph.AttrString:
			args = append(args, quote.Cpp(a.Str))
		case graph.AttrInts:
			if sym, ok := g.pr.IntAttrs.Symbolic(op, i); ok {
				args = append(args, fmt.Sprintf("wrapgen::Span<int64_t>(ints + %d, %d)", sym.Offset, len(a.Ints)))
			} else if lit, _ := emit.ConstList(a.Ints); len(a.Ints) > 0 {
				args = append(args, fmt.Sprintf("wrapgen::Span<int64_t>(%s, %d)", g.constVar[lit], len(a.Ints)))
			} else {
				args = append(args, "wrapgen::Span<int64_t>()")
			}
		}
	}
	out := []string{fmt.Sprintf("// %s (kernel %s)", op.Place, quote.CppComment(op.Kernel)), fmt.Sprintf("k.BeginOp(kOps[%d]);", ix)}
	out = append(out, pre...)
	out = append(out, fmt.Sprintf("s = k.%s(%s);", g.n.kernel[op.Kernel], strings.Join(args, ", ")),
		fmt.Sprintf("if (!s.ok()) return OpError(kOps[%d], s);", ix))
	return out
}
