package wgrt

import (
	"fmt"
	"sort"
	"strings"
)

// TensorSpec describes one tensor of a wrapper's signature: its name in
// the graph, dtype, shape (integers and symbol expressions as the graph
// writes them) and device.
type TensorSpec struct {
	Name   string
	DType  DType
	Shape  []string
	Device string
}

func (s TensorSpec) String() string {
	return fmt.Sprintf("%s: %s [%s] on %s", s.Name, s.DType, strings.Join(s.Shape, ", "), s.Device)
}

// Signature is what a wrapper takes and returns, for callers that learn
// the model at run time: the data inputs of each call, the params bound
// once, the outputs, and the symbols that no input's shape gives (set them
// by name with the inputs).
type Signature struct {
	Graph                   string
	Inputs, Params, Outputs []TensorSpec
	Symbols                 []string
}

// PickByName returns, for each name in order, the tensor of that name in
// tensors, reporting every missing name and every name that is not one of
// them in one error (what names the kind: "input", "param").
func PickByName(graph, what string, names []string, tensors map[string]Tensor) ([]Tensor, error) {
	var problems []string
	out := make([]Tensor, len(names))
	known := make(map[string]bool, len(names))
	for i, n := range names {
		known[n] = true
		t, ok := tensors[n]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s %s is missing", what, n))
			continue
		}
		out[i] = t
	}
	var extra []string
	for n := range tensors {
		if !known[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	for _, n := range extra {
		problems = append(problems, fmt.Sprintf("%s is not %s %s of graph %s", n, article(what), what, graph))
	}
	if len(problems) > 0 {
		return nil, &MismatchError{Graph: graph, What: what, Problems: problems}
	}
	return out, nil
}

func article(w string) string {
	if strings.ContainsAny(w[:1], "aeiou") {
		return "an"
	}
	return "a"
}
