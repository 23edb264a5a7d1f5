package graph

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// MaxFileBytes bounds what Load reads: a graph larger than this is certainly
// a mistake (a weights file passed by accident) and would exhaust memory.
const MaxFileBytes = 512 << 20

// Load reads, decodes and validates the graph at path. The error, if any, is
// an ErrorList naming the file and every place that is wrong, or the error
// reading the file.
func Load(path string) (*Graph, error) {
	// I/O errors are not the graph's: they name the file themselves.
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, ErrorList{{File: path, Msg: "is a directory, not a graph file"}}
	}
	if st.Size() > MaxFileBytes {
		return nil, ErrorList{{File: path, Msg: fmt.Sprintf("file is %d bytes, larger than the %d a graph may have", st.Size(), MaxFileBytes)}}
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil && st.Size() > 0 {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes and validates a graph held in memory; file names it in errors.
func Parse(file string, data []byte) (*Graph, error) {
	d := &decoder{file: file, lines: newLineIndex(data), opPos: map[*Op]int64{}, parsed: map[string]expr.Expr{}, extents: map[string]extent{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrorList{{File: file, Msg: "file is empty: expected a JSON object describing a graph"}}
	}
	root, off, err := parseJSON(data)
	if err != nil {
		line, col := d.lines.pos(off)
		je := asJSONError(err, int(off))
		msg := "malformed JSON: " + je.msg
		if je.first >= 0 {
			l, c := d.lines.pos(je.first)
			msg = fmt.Sprintf("%s (first at line %d, col %d)", je.msg, l, c)
		}
		return nil, ErrorList{{File: file, Line: line, Col: col, Place: je.place(), Msg: msg}}
	}
	g := d.decodeGraph(root)
	if len(d.problems) > 0 {
		return nil, d.problems
	}
	return g, nil
}

type decoder struct {
	file     string
	lines    lineIndex
	problems ErrorList
	g        *Graph
	symbols  map[string]*Symbol
	opPos    map[*Op]int64 // where each op starts in the file
	parsed   map[string]expr.Expr
	extents  map[string]extent      // dtype, shape and strides text → extent
	keyBuf   []byte                 // scratch for extents keys
	proofs   map[string]bool        // "a<=b" → whether LessEq proved it
	strides  map[string][]expr.Expr // shape text → row-major strides
	exprSlab []expr.Expr            // where exprAlloc cuts lists from
	// viewsInside holds "offset+extent<=base extent" triples proved.
	viewsInside map[string]bool
	samples     []expr.Env // symbol values sizes are checked at; see sampleEnvs
	bnds        expr.Bounds
	decider     *expr.Decider
	guardSeen   map[string]bool // guards kept, by place, words and fact
}

// lessEq is expr.LessEq under the graph's bounds, remembered: views and
// in-place pairs repeat the same few size relations in every layer.
func (d *decoder) lessEq(a, b expr.Expr) bool {
	key := append(append(append(d.keyBuf[:0], a.String()...), "<="...), b.String()...)
	d.keyBuf = key
	if v, ok := d.proofs[string(key)]; ok {
		return v
	}
	if d.proofs == nil {
		d.proofs = map[string]bool{}
	}
	v := expr.LessEq(a, b, d.bounds())
	d.proofs[string(key)] = v
	return v
}

// bounds is the graph's symbol ranges, built once the symbols are read.
func (d *decoder) bounds() expr.Bounds {
	if d.bnds == nil {
		d.bnds = d.g.Bounds()
	}
	return d.bnds
}

func (d *decoder) errAt(off int64, place, format string, args ...any) {
	line, col := d.lines.pos(off)
	d.problems = append(d.problems, &Problem{File: d.file, Line: line, Col: col, Place: place, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) err(n *jsonNode, place, format string, args ...any) {
	d.errAt(n.off, place, format, args...)
}

// fieldSet is an object's members by known name. An object has at most a
// few known fields, so a scan beats a map (which cost a third of loading a
// large graph).
type fieldSet struct {
	known []string
	vals  [8]*jsonNode
}

// get returns the member named k, or nil.
func (f *fieldSet) get(k string) *jsonNode {
	for i, name := range f.known {
		if name == k {
			return f.vals[i]
		}
	}
	return nil
}

// fields checks that n is an object whose keys are all known (at most 8)
// and returns the members by name; nil if n is not an object. (parseJSON
// has refused duplicate keys.)
func (d *decoder) fields(n *jsonNode, place string, known ...string) *fieldSet {
	return d.fieldsAt(n, func() string { return place }, known...)
}

// fieldsAt is fields with the place made only when there is a problem:
// most objects have none, and a large graph has hundreds of thousands.
func (d *decoder) fieldsAt(n *jsonNode, placeOf func() string, known ...string) *fieldSet {
	if n.kind != jsonObject {
		d.err(n, placeOf(), "expected an object, found %s", n.kind)
		return nil
	}
	out := &fieldSet{known: known}
	for mi := range n.kids {
		m := &n.kids[mi]
		k := slices.Index(known, m.key)
		switch {
		case k < 0:
			d.errAt(m.keyOff, placeOf(), "unknown field %q (known: %s)", m.key, strings.Join(known, ", "))
		default:
			out.vals[k] = &m.val
		}
	}
	return out
}

func (d *decoder) str(n *jsonNode, place string) (string, bool) {
	if n.kind != jsonString {
		d.err(n, place, "expected a string, found %s", n.kind)
		return "", false
	}
	return n.str, true
}

func (d *decoder) int(n *jsonNode, place string) (int64, bool) {
	if n.kind != jsonNumber {
		d.err(n, place, "expected an integer, found %s", n.kind)
		return 0, false
	}
	v, err := strconv.ParseInt(n.str, 10, 64)
	if err != nil {
		if strings.ContainsAny(n.str, ".eE") {
			d.err(n, place, "expected an integer, found %s", n.str)
		} else {
			d.err(n, place, "integer %s overflows int64", n.str)
		}
		return 0, false
	}
	return v, true
}

// expr reads an integer or an expression string over declared symbols.
// knownExpr is the fast path of expr for a size list: a non-negative integer
// or a string parsed before. It reports nothing; on false the caller takes
// the slow path, which names the place of any problem.
func (d *decoder) knownExpr(n *jsonNode) (expr.Expr, bool) {
	switch n.kind {
	case jsonNumber:
		if v, err := strconv.ParseInt(n.str, 10, 64); err == nil && v >= 0 {
			return expr.Const(v), true
		}
	case jsonString:
		e, ok := d.parsed[n.str]
		return e, ok
	}
	return expr.Expr{}, false
}

func (d *decoder) expr(n *jsonNode, place string) (expr.Expr, bool) {
	switch n.kind {
	case jsonNumber:
		v, ok := d.int(n, place)
		return expr.Const(v), ok
	case jsonString:
		if e, ok := d.parsed[n.str]; ok {
			return e, true // parsed and checked before
		}
		e, err := expr.Parse(n.str)
		if err != nil {
			col := 1
			if se, ok := err.(*expr.SyntaxError); ok {
				col = se.Col
			}
			d.errAt(n.off+int64(col), place, "expression %q does not parse: %s", n.str, strings.TrimPrefix(err.Error(), fmt.Sprintf("column %d: ", col)))
			return expr.Expr{}, false
		}
		ok := true
		for _, s := range e.Symbols() {
			if d.symbols[s] == nil {
				d.err(n, place, "expression %q uses undeclared symbol %q (declare it under \"symbols\")", n.str, s)
				ok = false
			}
		}
		if ok {
			ok = d.checkDivisors(n, place, e)
		}
		if ok {
			d.parsed[n.str] = e
		}
		return e, ok
	default:
		d.err(n, place, "expected an integer or an expression string, found %s", n.kind)
		return expr.Expr{}, false
	}
}

// checkDivisors refuses an expression that divides by 0 at some symbol
// value in range: the wrapper would crash computing it. A divisor proved
// positive or negative passes; otherwise it is evaluated at the sample
// values (every min/hint/max combination), where `x // n` with n's min 0
// shows.
func (d *decoder) checkDivisors(n *jsonNode, place string, e expr.Expr) bool {
	for _, div := range expr.Divisors(e) {
		if d.lessEq(expr.Const(1), div) || d.lessEq(div, expr.Const(-1)) {
			continue
		}
		for _, env := range d.sampleEnvs() {
			if v, err := div.Eval(env); err == nil && v == 0 {
				d.err(n, place, "expression %q divides by %s, which is 0 at %s", n.str, div, envText(env))
				return false
			}
		}
	}
	return true
}

func (d *decoder) decodeGraph(root *jsonNode) *Graph {
	if root.kind != jsonObject {
		d.err(root, "", "expected a JSON object describing a graph, found %s", root.kind)
		return nil
	}
	f := d.fields(root, "", "name", "symbols", "tensors", "inputs", "params", "outputs", "ops", "kernels")
	g := &Graph{File: d.file, byName: map[string]*Tensor{}}
	d.g = g
	d.symbols = map[string]*Symbol{}
	g.symbolByName = d.symbols
	for _, req := range []string{"name", "tensors", "inputs", "outputs", "ops"} {
		if f.get(req) == nil {
			d.err(root, "", "missing required field %q", req)
		}
	}
	if n := f.get("name"); n != nil {
		if s, ok := d.str(n, "name"); ok {
			if strings.TrimSpace(s) == "" {
				d.err(n, "name", "graph name is empty")
			}
			g.Name = s
		}
	}
	if n := f.get("symbols"); n != nil {
		d.decodeSymbols(n)
	}
	if n := f.get("tensors"); n != nil {
		d.decodeTensors(n)
	}
	g.Inputs = d.tensorList(f.get("inputs"), "inputs")
	g.Params = d.tensorList(f.get("params"), "params")
	g.Outputs = d.tensorList(f.get("outputs"), "outputs")
	if n := f.get("ops"); n != nil {
		g.Ops = d.decodeOps(n, "ops")
	}
	if n := f.get("kernels"); n != nil {
		g.Traits = d.decodeKernels(n)
	}
	if len(d.problems) > 0 {
		return nil
	}
	d.checkProgram(root)
	return g
}

// pendingBound is a run-time size's bound, read once every symbol is
// declared.
type pendingBound struct {
	s     *Symbol
	n     *jsonNode
	place string
}

func (d *decoder) decodeSymbols(n *jsonNode) {
	if n.kind != jsonObject {
		d.err(n, "symbols", "expected an object, found %s", n.kind)
		return
	}
	var bounds []pendingBound
	defer func() { d.decodeBounds(bounds) }()
	for mi := range n.kids {
		m := &n.kids[mi]
		place := fmt.Sprintf("symbols[%q]", m.key)
		if !validSymbolName(m.key) {
			d.errAt(m.keyOff, place, "symbol name must be an identifier (letters, digits, _; not starting with a digit)")
			continue
		}
		if m.key == "max" || m.key == "min" {
			d.errAt(m.keyOff, place, "%q is a function name in expressions and cannot be a symbol", m.key)
			continue
		}
		s := &Symbol{Name: m.key, Min: 1}
		// A symbol whose fields are wrong is still declared, so that its
		// uses do not each report it undeclared; only its own mistake is.
		d.symbols[s.Name] = s
		d.g.Symbols = append(d.g.Symbols, s)
		ok := true
		switch m.val.kind {
		case jsonNumber:
			s.Hint, ok = d.int(&m.val, place)
		default:
			f := d.fields(&m.val, place, "hint", "min", "max", "bound", "doc")
			if f == nil {
				continue
			}
			if n := f.get("doc"); n != nil {
				s.Doc, _ = d.str(n, place+".doc")
			}
			if b := f.get("bound"); b != nil {
				for _, k := range []string{"hint", "min", "max"} {
					if f.get(k) != nil {
						d.err(f.get(k), place, "a symbol with a \"bound\" is set at run time: it has no %q", k)
					}
				}
				s.Min, bounds = 0, append(bounds, pendingBound{s, b, place + ".bound"})
				continue
			}
			if f.get("hint") == nil {
				d.err(&m.val, place, "missing required field \"hint\"")
				continue
			}
			var ok1, ok2, ok3 bool = true, true, true
			s.Hint, ok1 = d.int(f.get("hint"), place+".hint")
			if f.get("min") != nil {
				s.Min, ok2 = d.int(f.get("min"), place+".min")
			}
			if f.get("max") != nil {
				s.Max, ok3 = d.int(f.get("max"), place+".max")
				s.HasMax = true
			}
			ok = ok1 && ok2 && ok3
		}
		if !ok {
			continue // the value was reported; its range cannot be checked
		}
		switch {
		case s.Min < 0:
			d.err(&m.val, place, "min %d is negative: symbols are sizes", s.Min)
		case s.HasMax && s.Max < s.Min:
			d.err(&m.val, place, "max %d is below min %d", s.Max, s.Min)
		case s.Hint < s.Min || (s.HasMax && s.Hint > s.Max):
			d.err(&m.val, place, "hint %d is outside [%d, %s]", s.Hint, s.Min, maxText(s))
		}
	}
}

// decodeBounds reads the bounds of the run-time sizes: expressions of the
// given symbols, never negative. A run-time size ranges over [0, bound]:
// its maximum is the bound's largest value, its hint the bound at the
// hints (where the planner sizes its storages).
func (d *decoder) decodeBounds(bounds []pendingBound) {
	var hints expr.Env
	for _, pb := range bounds {
		e, ok := d.expr(pb.n, pb.place)
		if !ok {
			continue
		}
		for _, name := range e.Symbols() {
			if d.symbols[name].RunTime() {
				d.err(pb.n, pb.place, "bound %s uses %q, a size set at run time: a bound is an expression of the given symbols", e, name)
				ok = false
			}
		}
		if !ok {
			continue
		}
		b := d.bounds()
		if !expr.NonNeg(e, b) {
			d.err(pb.n, pb.place, "bound %s may be negative", e)
			continue
		}
		s := pb.s
		s.Bound = &e
		if hi, ok := expr.UpperBound(e, b); ok {
			s.Max, s.HasMax = hi, true
		}
		if hints == nil { // once: a bound uses only the given symbols, whose hints are read
			hints = expr.Env{}
			for _, o := range d.g.Symbols {
				hints[o.Name] = o.Hint
			}
		}
		if h, err := e.Eval(hints); err == nil {
			s.Hint = h
		}
	}
}

func maxText(s *Symbol) string {
	if s.HasMax {
		return strconv.FormatInt(s.Max, 10)
	}
	return "∞"
}

func validSymbolName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// tensorList reads a list of tensor names that must exist and not repeat.
func (d *decoder) tensorList(n *jsonNode, place string) []*Tensor {
	if n == nil {
		return nil
	}
	if n.kind != jsonArray {
		d.err(n, place, "expected an array of tensor names, found %s", n.kind)
		return nil
	}
	var out []*Tensor
	seen := map[string]bool{}
	for i := range n.kids {
		el := n.elem(i)
		p := func() string { return fmt.Sprintf("%s[%d]", place, i) }
		if el.kind != jsonString {
			d.str(el, p()) // reports it
			continue
		}
		name := el.str
		t := d.g.byName[name]
		switch {
		case t == nil:
			d.err(el, p(), "tensor %q is not defined under \"tensors\"", name)
		case seen[name]:
			d.err(el, p(), "tensor %q is listed twice", name)
		default:
			seen[name] = true
			out = append(out, t)
		}
	}
	return out
}
