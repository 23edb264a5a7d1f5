package onnx

import "fmt"

// Names the importer makes for tensors the model does not name (a loop's
// counter, a run-time size's count, a constant output's source) must not
// be a name the model uses anywhere, a later node's output or a subgraph's
// value included: the model's own tensor would then be "defined twice".

// fresh is base, or base_2, base_3... : the first that no value of the
// model has and fresh has not made before.
func (im *importer) fresh(base string) string {
	if im.taken == nil {
		im.taken = modelNames(im.m.graph)
	}
	name := base
	for k := 2; im.taken[name]; k++ {
		name = fmt.Sprintf("%s_%d", base, k)
	}
	im.taken[name] = true
	return name
}

// modelNames are the value names g and the graphs nested in it define or
// read.
func modelNames(g *graphProto) map[string]bool {
	names := map[string]bool{}
	var add func(g *graphProto)
	add = func(g *graphProto) {
		for _, vis := range [][]*valueInfo{g.inputs, g.outputs, g.valueInfo} {
			for _, vi := range vis {
				names[vi.name] = true
			}
		}
		for _, t := range g.initializers {
			names[t.name] = true
		}
	}
	add(g)
	eachNode(g, func(n *nodeProto) {
		for _, list := range [][]string{n.inputs, n.outputs} {
			for _, x := range list {
				names[x] = true
			}
		}
		for _, a := range n.attrs {
			if a.g != nil {
				add(a.g)
			}
		}
	})
	return names
}

// eachNode calls f on every node of g and of the graphs nested in its
// nodes' attributes, outer nodes first.
func eachNode(g *graphProto, f func(*nodeProto)) {
	for _, n := range g.nodes {
		f(n)
		for _, a := range n.attrs {
			if a.g != nil {
				eachNode(a.g, f)
			}
		}
	}
}

// firstOutput is the name of n's first output present.
func firstOutput(n *nodeProto) string {
	for _, o := range n.outputs {
		if o != "" {
			return o
		}
	}
	return ""
}
