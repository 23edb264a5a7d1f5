package synth

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// Random returns a valid graph drawn from seed, for property tests and
// fuzzing: chains and skip connections, views (transposes and slices, of
// inputs and of intermediates, as outputs too), in-place chains, mutates,
// nested loops with body-local tensors, two devices, symbolic sizes and
// attributes of every kind. The same seed gives the same graph.
func Random(seed uint64) []byte {
	r := &randomGraph{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), tensors: map[string]any{}}
	return r.build()
}

type rtensor struct {
	name   string
	shape  string // a key of rshapes
	dtype  string
	device string
	view   bool
	base   *rtensor // root storage
}

// rshapes are the shapes a random tensor takes; views are defined on "n4".
var rshapes = map[string][]any{
	"n4":  {"n", 4},
	"n8":  {"n", 8},
	"4":   {4},
	"2n4": {"2*n", 4},
	"nm":  {"n", "m"},
}
var rshapeKeys = []string{"n4", "n8", "4", "2n4", "nm"}

type randomGraph struct {
	rng     *rand.Rand
	tensors map[string]any
	inputs  []string
	ops     int
	views   int
}

func (r *randomGraph) pick(n int) int { return r.rng.IntN(n) }

func (r *randomGraph) newTensor(prefix, shape, dtype, device string) *rtensor {
	t := &rtensor{name: fmt.Sprintf("%s%d", prefix, len(r.tensors)), shape: shape, dtype: dtype, device: device}
	t.base = t
	r.tensors[t.name] = map[string]any{"dtype": dtype, "shape": rshapes[shape], "device": device}
	return t
}

// view makes a transpose or a slice of a [n, 4] tensor.
func (r *randomGraph) view(of *rtensor) *rtensor {
	v := &rtensor{name: fmt.Sprintf("v%d", len(r.tensors)), shape: "view", dtype: of.dtype, device: of.device, view: true, base: of.base}
	if r.pick(2) == 0 {
		r.tensors[v.name] = map[string]any{"view_of": of.name, "shape": []any{4, "n"}, "strides": []any{1, 4}}
	} else {
		r.tensors[v.name] = map[string]any{"view_of": of.name, "shape": []any{"n", 2}, "strides": []any{4, 1}, "offset": 2}
	}
	r.views++
	return v
}

func (r *randomGraph) attrs() map[string]any {
	a := map[string]any{}
	if r.pick(3) == 0 {
		a["k"] = r.pick(5)
	}
	if r.pick(4) == 0 {
		a["eps"] = 0.5
	}
	if r.pick(4) == 0 {
		a["flag"] = true
	}
	if r.pick(5) == 0 {
		a["mode"] = "same"
	}
	if r.pick(4) == 0 {
		a["pad"] = []any{1, map[string]any{"expr": "n+1"}}
	}
	if r.pick(4) == 0 {
		a["size"] = map[string]any{"expr": "2*n"}
	}
	return a
}

type scope struct {
	avail    []*rtensor // readable now
	writable []*rtensor // may be mutated or taken over here
}

func (s *scope) remove(t *rtensor) {
	drop := func(ts []*rtensor) []*rtensor {
		out := ts[:0:0]
		for _, x := range ts {
			if x != t {
				out = append(out, x)
			}
		}
		return out
	}
	s.avail, s.writable = drop(s.avail), drop(s.writable)
}

func (r *randomGraph) kernel() string {
	r.ops++
	return fmt.Sprintf("k%d", r.ops)
}

// body emits n ops; depth limits loop nesting. Tensors in outside (from
// around a loop) may be mutated but not taken over in place.
func (r *randomGraph) body(s *scope, n, depth int, outside map[*rtensor]bool) []any {
	ops := []any{}
	devices := []string{"cpu", "cpu", "cuda:0"}
	for i := 0; i < n; i++ {
		plain := func() {
			var ins []string
			for j := 0; j < 1+r.pick(3) && len(s.avail) > 0; j++ {
				ins = append(ins, s.avail[r.pick(len(s.avail))].name)
			}
			out := r.newTensor("t", rshapeKeys[r.pick(len(rshapeKeys))], []string{"f32", "f16", "i64"}[r.pick(3)], devices[r.pick(3)])
			op := map[string]any{"kernel": r.kernel(), "inputs": ins, "outputs": []string{out.name}}
			if a := r.attrs(); len(a) > 0 {
				op["attrs"] = a
			}
			ops = append(ops, op)
			s.avail = append(s.avail, out)
			s.writable = append(s.writable, out)
			if out.shape == "n4" && r.pick(2) == 0 {
				s.avail = append(s.avail, r.view(out))
			}
		}
		switch k := r.pick(10); {
		case k < 5 || len(s.avail) == 0:
			plain()
		case k < 7 && len(s.writable) > 0: // in place: out takes over a storage
			in := s.writable[r.pick(len(s.writable))]
			if in.view || outside[in] {
				ops = append(ops, map[string]any{"kernel": r.kernel(), "inputs": []string{in.name}, "outputs": []string{}, "mutates": []string{in.name}})
				continue
			}
			out := r.newTensor("t", in.shape, in.dtype, in.device)
			ops = append(ops, map[string]any{"kernel": r.kernel(), "inputs": []string{in.name}, "outputs": []string{out.name},
				"inplace": map[string]string{out.name: in.name}})
			s.remove(in)
			s.avail = append(s.avail, out)
			s.writable = append(s.writable, out)
		case k < 8 && len(s.writable) > 0: // mutate
			t := s.writable[r.pick(len(s.writable))]
			ops = append(ops, map[string]any{"kernel": r.kernel(), "inputs": []string{t.name}, "outputs": []string{}, "mutates": []string{t.name}})
		case depth >= 2:
			plain()
		default: // a loop: reads from outside, body-local tensors, mutates of outside tensors
			inner := &scope{avail: append([]*rtensor(nil), s.avail...)}
			out := map[*rtensor]bool{}
			for t := range outside {
				out[t] = true
			}
			for _, t := range s.writable {
				out[t] = true
				if r.pick(2) == 0 {
					inner.writable = append(inner.writable, t)
				}
			}
			count := []any{"m", 2, 0}[r.pick(3)]
			bodyOps := r.body(inner, 1+r.pick(3), depth+1, out)
			ops = append(ops, map[string]any{"loop": map[string]any{"count": count, "body": bodyOps}})
		}
	}
	return ops
}

func (r *randomGraph) build() []byte {
	s := &scope{}
	for i := 0; i < 2+r.pick(3); i++ {
		t := r.newTensor("in", rshapeKeys[r.pick(len(rshapeKeys))], "f32", "cpu")
		r.inputs = append(r.inputs, t.name)
		s.avail = append(s.avail, t)
		if t.shape == "n4" {
			s.avail = append(s.avail, r.view(t))
		}
	}
	ops := r.body(s, 3+r.pick(12), 0, nil)
	// Outputs: one or two intermediates (a view of one sometimes).
	var outputs []string
	var cands []*rtensor
	for _, t := range s.avail {
		if t.base != nil && !isInput(r.inputs, t.base.name) {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		out := r.newTensor("t", "n4", "f32", "cpu")
		ops = append(ops, map[string]any{"kernel": r.kernel(), "inputs": []string{r.inputs[0]}, "outputs": []string{out.name}})
		cands = append(cands, out)
	}
	for i := 0; i < 1+r.pick(2) && len(cands) > 0; i++ {
		j := r.pick(len(cands))
		outputs = append(outputs, cands[j].name)
		cands = append(cands[:j], cands[j+1:]...)
	}
	g := map[string]any{
		"name":    "random",
		"symbols": map[string]any{"n": map[string]any{"hint": 1 + r.pick(8), "min": 1, "max": 64}, "m": map[string]any{"hint": 2, "min": 0, "max": 16}},
		"tensors": r.tensors,
		"inputs":  r.inputs,
		"outputs": outputs,
		"ops":     ops,
	}
	data, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		panic(err)
	}
	return data
}

func isInput(inputs []string, name string) bool {
	for _, in := range inputs {
		if in == name {
			return true
		}
	}
	return false
}
