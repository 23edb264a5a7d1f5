package graph

// Kernel is the signature shared by every op that calls one kernel name:
// what a backend declares once and calls from each op.
type Kernel struct {
	Name    string
	Outputs int
	// Inputs is the number of arguments (see Op.Args) when every op agrees
	// on it; Variadic is set, and Inputs is the smallest count seen, when
	// they differ.
	Inputs   int
	Variadic bool
	// Scratch is set when the kernel is given scratch memory (Op.Scratch).
	Scratch bool
	Attrs   []AttrSig
	First   *Op // the first op calling it, for messages
	// MayAlias lists the outputs that may share memory with inputs, as the
	// graph's "kernels" object declares.
	MayAlias []AliasPair
}

// AttrSig is an attribute's name and kind in a kernel signature.
type AttrSig struct {
	Name string
	Kind AttrKind
}

// Args is what a kernel call reads: the op's inputs, then any tensor it
// mutates that is not among them (the kernel must be given it to write it).
func (op *Op) Args() []*Tensor {
	args := op.Inputs
	for _, m := range op.Mutates {
		found := false
		for _, t := range op.Inputs {
			if t == m {
				found = true
				break
			}
		}
		if !found {
			if len(args) == len(op.Inputs) {
				args = append(args[:len(args):len(args)], m)
			} else {
				args = append(args, m)
			}
		}
	}
	return args
}

// Kernels lists the kernel signatures in order of first call. The graph
// was validated, so ops with one name agree on outputs and attributes.
func (g *Graph) Kernels() []*Kernel {
	var ks []*Kernel
	by := map[string]*Kernel{}
	Walk(g.Ops, func(op *Op, _ []*Op) {
		n := len(op.Args())
		k := by[op.Kernel]
		if k == nil {
			k = &Kernel{Name: op.Kernel, Outputs: len(op.Outputs), Inputs: n, First: op, MayAlias: g.Traits[op.Kernel].MayAlias,
				Scratch: op.Scratch != nil}
			for _, a := range op.Attrs {
				k.Attrs = append(k.Attrs, AttrSig{a.Name, a.Kind})
			}
			by[op.Kernel] = k
			ks = append(ks, k)
			return
		}
		if n != k.Inputs {
			k.Variadic = true
			k.Inputs = min(k.Inputs, n)
		}
	})
	return ks
}
