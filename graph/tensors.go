package graph

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// extent is what a tensor spans, in elements and (for its dtype) bytes.
type extent struct {
	elems, bytes expr.Expr
	mayBeEmpty   bool
}

type rawTensor struct {
	t      *Tensor
	node   *jsonNode
	fields *fieldSet
}

// place names the tensor in errors; made only when one is reported.
// fieldOff is where field starts in the file, or the tensor when the
// field is absent (a view's shape may be its base's).
func (r *rawTensor) fieldOff(field string) int64 {
	if n := r.fields.get(field); n != nil {
		return n.off
	}
	return r.node.off
}

func (r *rawTensor) place() string { return fmt.Sprintf("tensors[%q]", r.t.Name) }

func (d *decoder) decodeTensors(n *jsonNode) {
	if n.kind != jsonObject {
		d.err(n, "tensors", "expected an object mapping names to tensors, found %s", n.kind)
		return
	}
	raws := make([]*rawTensor, 0, len(n.kids))
	if len(d.g.byName) == 0 {
		d.g.byName = make(map[string]*Tensor, len(n.kids))
	}
	// Tensors and their decoding state are allocated together, once.
	tensors := make([]Tensor, len(n.kids))
	rawStore := make([]rawTensor, len(n.kids))
	for mi := range n.kids {
		m := &n.kids[mi]
		placeOf := func() string { return fmt.Sprintf("tensors[%q]", m.key) }
		if m.key == "" {
			d.errAt(m.keyOff, placeOf(), "tensor name is empty")
			continue
		}
		f := d.fieldsAt(&m.val, placeOf, "dtype", "shape", "strides", "device", "view_of", "offset", "data")
		if f == nil {
			continue
		}
		t := &tensors[len(raws)]
		t.Index, t.Name = len(d.g.Tensors), m.key
		d.g.byName[m.key] = t
		d.g.Tensors = append(d.g.Tensors, t)
		r := &rawStore[len(raws)]
		r.t, r.node, r.fields = t, &m.val, f
		raws = append(raws, r)
	}
	for _, r := range raws {
		d.decodeTensorFields(r)
	}
	d.resolveViews(raws)
	extentOK := make([]bool, len(raws))
	for _, r := range raws {
		extentOK[r.t.Index] = d.checkExtent(r)
	}
	for _, r := range raws {
		if r.t.ViewOf != nil && extentOK[r.t.Index] && extentOK[r.t.ViewOf.Index] {
			d.checkViewInside(r)
		}
	}
}

func (d *decoder) decodeTensorFields(r *rawTensor) {
	t, f := r.t, r.fields
	// Places are made only for problems: a large graph has hundreds of
	// thousands of tensors and few mistakes.
	str := func(n *jsonNode, field string) (string, bool) {
		if n.kind == jsonString {
			return n.str, true
		}
		return d.str(n, r.place()+"."+field)
	}
	if n := f.get("dtype"); n != nil {
		if s, ok := str(n, "dtype"); ok {
			t.DType = DType(s)
			if !t.DType.Valid() {
				names := make([]string, len(DTypes))
				for i, dt := range DTypes {
					names[i] = string(dt)
				}
				d.err(n, r.place()+".dtype", "unknown dtype %q (one of %s)", s, strings.Join(names, " "))
			}
		}
	} else if f.get("view_of") == nil {
		d.err(r.node, r.place(), "missing required field \"dtype\"")
	}
	if n := f.get("device"); n != nil {
		if s, ok := str(n, "device"); ok {
			if s == "" {
				d.err(n, r.place()+".device", "device is empty")
			}
			t.Device = s
		}
	}
	if n := f.get("shape"); n == nil {
		d.err(r.node, r.place(), "missing required field \"shape\"")
	} else {
		t.Shape = d.exprList(n, func() string { return r.place() + ".shape" })
	}
	if n := f.get("strides"); n != nil {
		t.Strides = d.exprList(n, func() string { return r.place() + ".strides" })
		if t.Strides != nil && len(t.Strides) != len(t.Shape) {
			d.err(n, r.place()+".strides", "has %d entries but shape has %d", len(t.Strides), len(t.Shape))
		}
	}
	if n := f.get("offset"); n != nil {
		if f.get("view_of") == nil {
			d.err(n, r.place()+".offset", "offset is only allowed on a view (with view_of)")
		}
		if e, ok := d.knownExpr(n); ok {
			t.Offset = e
		} else {
			t.Offset, _ = d.expr(n, r.place()+".offset")
		}
	}
	if n := f.get("view_of"); n != nil {
		if s, ok := str(n, "view_of"); ok {
			if base := d.g.byName[s]; base == nil {
				d.err(n, r.place()+".view_of", "base tensor %q is not defined", s)
			} else {
				t.ViewOf = base
			}
		}
	}
	if t.Strides == nil && len(t.Shape) > 0 {
		t.Strides = d.rowMajor(t.Shape)
	}
	if n := f.get("data"); n != nil {
		d.decodeData(r, n)
	}
}

// rowMajor returns contiguous strides for shape, remembered by shape: a
// large graph repeats a few shapes many times.
func (d *decoder) rowMajor(shape []expr.Expr) []expr.Expr {
	key := d.keyBuf[:0]
	for _, e := range shape {
		key = append(append(key, e.String()...), ',')
	}
	d.keyBuf = key
	if st, ok := d.strides[string(key)]; ok {
		return d.exprCopy(st)
	}
	st := make([]expr.Expr, len(shape))
	acc := expr.Const(1)
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc = expr.Mul(acc, shape[i])
	}
	if d.strides == nil {
		d.strides = map[string][]expr.Expr{}
	}
	d.strides[string(key)] = st
	return d.exprCopy(st)
}

// exprAlloc returns n zero expressions cut from a slab (shapes and strides
// are many short lists); the capacity is n, so an append to the list
// cannot reach its neighbours.
func (d *decoder) exprAlloc(n int) []expr.Expr {
	if n > len(d.exprSlab) {
		d.exprSlab = make([]expr.Expr, max(4096, n))
	}
	out := d.exprSlab[:n:n]
	d.exprSlab = d.exprSlab[n:]
	return out
}

func (d *decoder) exprCopy(xs []expr.Expr) []expr.Expr {
	out := d.exprAlloc(len(xs))
	copy(out, xs)
	return out
}

func (d *decoder) exprList(n *jsonNode, placeOf func() string) []expr.Expr {
	if n.kind != jsonArray {
		d.err(n, placeOf(), "expected an array, found %s", n.kind)
		return nil
	}
	out := d.exprAlloc(len(n.kids))
	for i := range n.kids {
		el := n.elem(i)
		if e, ok := d.knownExpr(el); ok {
			out[i] = e
			continue
		}
		p := fmt.Sprintf("%s[%d]", placeOf(), i)
		e, ok := d.expr(el, p)
		if !ok {
			continue
		}
		if c, isConst := e.IsConst(); isConst && c < 0 {
			d.err(el, p, "is negative (%d)", c)
		}
		out[i] = e
	}
	return out
}

// resolveViews finds each tensor's root storage, reports cycles of views and
// fills dtype and device from the base (bases first, so chains resolve).
func (d *decoder) resolveViews(raws []*rawTensor) {
	// raws[i] is the tensor with Index i: both are in file order.
	const visiting, done = 1, 2
	state := make([]uint8, len(raws))
	var resolve func(t *Tensor)
	resolve = func(t *Tensor) {
		if state[t.Index] != 0 {
			return
		}
		state[t.Index] = visiting
		defer func() { state[t.Index] = done }()
		if t.ViewOf == nil {
			t.Root = t
			if t.Device == "" {
				t.Device = "cpu"
			}
			return
		}
		r := raws[t.Index]
		if state[t.ViewOf.Index] == visiting {
			d.err(r.fields.get("view_of"), r.place()+".view_of", "views form a cycle: %s", d.cycleText(t))
			return
		}
		resolve(t.ViewOf)
		base := t.ViewOf
		if base.Root == nil {
			return // the base is broken; reported there
		}
		t.Root = base.Root
		if t.DType == "" {
			t.DType = base.DType
		} else if base.DType != "" && t.DType != base.DType {
			d.err(r.fields.get("dtype"), r.place()+".dtype", "view dtype %s differs from base %q dtype %s", t.DType, base.Name, base.DType)
		}
		if t.Device == "" {
			t.Device = base.Device
		} else if t.Device != base.Device {
			d.err(r.fields.get("device"), r.place()+".device", "view device %q differs from base %q device %q", t.Device, base.Name, base.Device)
		}
	}
	for _, r := range raws {
		resolve(r.t)
	}
}

// cycleText names the first few tensors of the view chain from t and, when
// it is longer, how many there are: a message stays one readable line.
func (d *decoder) cycleText(t *Tensor) string {
	const shown = 6
	names := []string{strconv.Quote(t.Name)}
	seen := map[*Tensor]bool{t: true}
	n := 1
	for v := t.ViewOf; v != nil && !seen[v]; v = v.ViewOf {
		if n < shown {
			names = append(names, strconv.Quote(v.Name))
		}
		seen[v] = true
		n++
	}
	if n > shown {
		return fmt.Sprintf("%s → … (%d views in all)", strings.Join(names, " → "), n)
	}
	return strings.Join(names, " → ") + " → …"
}

// sampleEnvs are the symbol values sizes are checked at: the hints, every
// symbol at its minimum, and at its maximum where one is declared.
func (d *decoder) sampleEnvs() []expr.Env {
	if d.samples == nil {
		d.samples = d.makeSampleEnvs()
	}
	return d.samples
}

// makeSampleEnvs gives the symbol values sizes and views are checked at
// where no proof covers them: the hints, all minimums and all maximums, and
// with a few symbols every combination of each one's min, hint and max (a
// view can fit at all-min and all-max yet not at n=min, m=max).
func (d *decoder) makeSampleEnvs() []expr.Env {
	if envs := d.cornerEnvs(); envs != nil {
		return envs
	}
	hints, mins, maxes := expr.Env{}, expr.Env{}, expr.Env{}
	names := make([]string, 0, len(d.symbols))
	for n := range d.symbols {
		names = append(names, n)
	}
	sort.Strings(names)
	anyMax := false
	for _, n := range names {
		s := d.symbols[n]
		hints[n], mins[n], maxes[n] = s.Hint, s.Min, s.Hint
		if s.HasMax {
			maxes[n] = s.Max
			anyMax = true
		}
	}
	envs := []expr.Env{hints, mins}
	if anyMax {
		envs = append(envs, maxes)
	}
	return envs
}

// maxCornerEnvs bounds the combinations cornerEnvs makes: each sample costs
// an evaluation of every distinct extent of the graph.
const maxCornerEnvs = 27

// cornerEnvs is every combination of each symbol's min, hint and max (hints
// first), or nil when there are too many.
func (d *decoder) cornerEnvs() []expr.Env {
	names := make([]string, 0, len(d.symbols))
	for n := range d.symbols {
		names = append(names, n)
	}
	sort.Strings(names)
	envs := []expr.Env{{}}
	for _, n := range names {
		s := d.symbols[n]
		vals := []int64{s.Hint}
		if s.Min != s.Hint {
			vals = append(vals, s.Min)
		}
		if s.HasMax && s.Max != s.Hint && s.Max != s.Min {
			vals = append(vals, s.Max)
		}
		if len(envs)*len(vals) > maxCornerEnvs {
			return nil
		}
		var next []expr.Env
		for _, e := range envs {
			for _, v := range vals {
				ne := maps.Clone(e)
				ne[n] = v
				next = append(next, ne)
			}
		}
		envs = next
	}
	return envs
}

func envText(env expr.Env) string {
	var parts []string
	for k, v := range env {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// checkExtent computes how many elements t spans and checks sizes, strides,
// byte counts and view bounds at the sample symbol values.
func (d *decoder) checkExtent(r *rawTensor) bool {
	t := r.t
	if t.Root == nil || t.DType == "" || !t.DType.Valid() || len(t.Strides) != len(t.Shape) {
		return false
	}
	for i := range t.Shape {
		if t.Shape[i].Overflowed() || t.Strides[i].Overflowed() {
			d.err(r.node, r.place(), "sizes or strides overflow int64")
			return false
		}
	}
	// The key is built in a reused buffer: the lookup does not allocate,
	// and most tensors repeat a shape seen before.
	key := append(d.keyBuf[:0], t.DType...)
	for i := range t.Shape {
		key = append(append(append(append(key, '|'), t.Shape[i].String()...), '/'), t.Strides[i].String()...)
	}
	if t.ViewOf != nil {
		key = append(append(key, "|@"...), t.Offset.String()...)
	}
	d.keyBuf = key
	ext, seen := d.extents[string(key)]
	if !seen {
		// The key is copied now: lessEq below reuses d.keyBuf.
		keyText := string(key)
		parts := []expr.Expr{expr.Const(1)}
		for i := range t.Shape {
			parts = append(parts, expr.Mul(expr.Sub(t.Shape[i], expr.Const(1)), t.Strides[i]))
		}
		span := expr.Add(parts...)
		if fs := d.emptyFactors(span, t.Shape); len(fs) > 0 {
			span = expr.Mul(append([]expr.Expr{span}, fs...)...)
		}
		if !d.checkFacts(r, span) {
			return false
		}
		ext = extent{span, expr.Scale(d.g.atCapacity(span), t.DType.Size()), mayBeEmpty(t.Shape, d)}
		d.extents[keyText] = ext
	}
	t.ExtentElems, t.bytes, t.mayBeEmpty = ext.elems, ext.bytes, ext.mayBeEmpty
	t.hasBytes = true
	if t.ViewOf == nil && !expr.Equal(ext.bytes, expr.Scale(ext.elems, t.DType.Size())) {
		// Planned at the bounds: the wrapper checks, whenever an op sets a
		// run-time size, that the storage still holds the tensor.
		d.g.Guards = append(d.g.Guards, Guard{Fact: expr.Sub(ext.bytes, expr.Scale(ext.elems, t.DType.Size())), Place: r.place(),
			What: fmt.Sprintf("tensor %q fits the storage planned at its run-time sizes' bounds", t.Name)})
	}
	return true
}

// mayBeEmpty reports whether some size of shape can be 0.
func mayBeEmpty(shape []expr.Expr, d *decoder) bool {
	for _, s := range shape {
		if !d.lessEq(expr.Const(1), s) {
			return true
		}
	}
	return false
}

// emptyFactors makes a tensor with a size of 0 span nothing, as the format
// says, for every symbol value: 1 + sum((size_i-1)*stride_i) alone goes
// negative at size 0 (or stays positive, with some strides), so the span
// is multiplied by min(size_i, 1), which is 0 exactly when size_i is, for
// each size that can be 0 (a constant 0, or an expression over a symbol
// with min 0) and that the span does not already vanish with. Graphs
// without empty tensors keep their sizes as they were.
func (d *decoder) emptyFactors(span expr.Expr, shape []expr.Expr) []expr.Expr {
	var fs []expr.Expr
	for _, s := range shape {
		if !d.lessEq(expr.Const(1), s) && !expr.VanishesWith(span, s) {
			fs = append(fs, expr.Min(s, expr.Const(1)))
		}
	}
	return fs
}

// checkFacts establishes, for every symbol value in range, what a tensor's
// layout must satisfy: sizes, strides and a view's offset non-negative, and
// its byte size computable in int64 (see decideFact).
func (d *decoder) checkFacts(r *rawTensor, span expr.Expr) bool {
	t := r.t
	for i, s := range t.Shape {
		if !d.decideFact(factCheck{s, r.fieldOff("shape"), fmt.Sprintf("%s.shape[%d]", r.place(), i),
			fmt.Sprintf("size %s is not negative", s), negativeOr("size " + s.String())}) {
			return false
		}
	}
	for i, s := range t.Strides {
		if !d.decideFact(factCheck{s, r.node.off, fmt.Sprintf("%s.strides[%d]", r.place(), i),
			fmt.Sprintf("stride %s is not negative", s), negativeOr("stride " + s.String())}) {
			return false
		}
	}
	// The byte size is not negative when the sizes and strides are not (a
	// size of 0 zeroes the span): only values where it overflows are
	// looked for; the runtimes' checked arithmetic catches the others.
	bytes := expr.Scale(span, t.DType.Size())
	if bytes.Overflowed() || !d.checkImplied(factCheck{fact: bytes, off: r.node.off, place: r.place(),
		fail: func(_ int64, _ error, env expr.Env) string { return "storage size overflows int64" + atText(env) }}) {
		if bytes.Overflowed() {
			d.err(r.node, r.place(), "storage size overflows int64")
		}
		return false
	}
	if t.ViewOf != nil && !d.decideFact(factCheck{t.Offset, r.fieldOff("offset"), r.place() + ".offset",
		fmt.Sprintf("offset %s is not negative", t.Offset), negativeOr("offset " + t.Offset.String())}) {
		return false
	}
	return true
}

// checkViewInside reports a view that reaches outside its base: proven
// inside for all symbol values, or checked at the sample values.
func (d *decoder) checkViewInside(r *rawTensor) {
	t, base := r.t, r.t.ViewOf
	if c, ok := t.ExtentElems.IsConst(); ok && c == 0 {
		return // spans nothing
	}
	// Views repeat a few (offset, extent, base) triples in every layer.
	key := append(append(append(append(append(d.keyBuf[:0], t.Offset.String()...), '+'), t.ExtentElems.String()...), "<="...), base.ExtentElems.String()...)
	d.keyBuf = key
	if d.viewsInside[string(key)] {
		return
	}
	end := expr.Add(t.Offset, t.ExtentElems)
	if d.lessEq(end, base.ExtentElems) {
		if d.viewsInside == nil {
			d.viewsInside = map[string]bool{}
		}
		d.viewsInside[string(key)] = true
		return
	}
	// Where the view spans nothing its end may lie anywhere: the fact is
	// min(extent, 1) * (base extent - end) >= 0.
	fact := expr.Mul(expr.Min(t.ExtentElems, expr.Const(1)), expr.Sub(base.ExtentElems, end))
	d.decideFact(factCheck{fact, r.node.off, r.place(), fmt.Sprintf("view %q lies inside its base %q", t.Name, base.Name),
		func(_ int64, err error, env expr.Env) string {
			e, err1 := end.Eval(env)
			b, err2 := base.ExtentElems.Eval(env)
			if err = errors.Join(err, err1, err2); err != nil {
				return fmt.Sprintf("view end %s or base extent %s: %v%s", end, base.ExtentElems, err, atText(env))
			}
			return fmt.Sprintf("view reaches element %d but base %q spans only %d elements%s", e, base.Name, b, atText(env))
		}})
}
