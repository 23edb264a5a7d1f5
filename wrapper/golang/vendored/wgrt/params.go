package wgrt

import (
	"fmt"
	"sort"
	"strings"
)

// MismatchError lists every way a set of named tensors (params, or inputs
// given by name) does not fit a wrapper: missing, extra, mis-typed and
// mis-shaped tensors, all at once.
type MismatchError struct {
	Graph, What string // What is "param" or "input"
	Problems    []string
}

func (e *MismatchError) Error() string {
	if len(e.Problems) == 1 {
		return e.Graph + ": " + e.Problems[0]
	}
	return fmt.Sprintf("%s: %d problems with the %ss:\n\t%s", e.Graph, len(e.Problems), e.What, strings.Join(e.Problems, "\n\t"))
}

func joinErrors(graph string, errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	e := &MismatchError{Graph: graph, What: "param"}
	for _, err := range errs {
		e.Problems = append(e.Problems, err.Error())
	}
	return e
}

// CollectParams fills dst (one pointer per param, in p's order) from
// tensors by name and checks each against its layout. Every missing,
// extra, mis-typed or mis-shaped tensor is reported in one ParamsError.
func CollectParams(p *Program, tensors map[string]Tensor, dst []*Tensor) error {
	var errs []error
	known := make(map[string]bool, len(p.ParamNames))
	for j, name := range p.ParamNames {
		known[name] = true
		t, ok := tensors[name]
		if !ok {
			errs = append(errs, fmt.Errorf("param %s is missing", name))
			continue
		}
		dtype, device, shape, strides := p.fixedLayout(p.Params[j])
		if err := CheckTensor(name, t, dtype, device, shape, strides); err != nil {
			errs = append(errs, fmt.Errorf("param %w", err))
			continue
		}
		*dst[j] = t
	}
	var extra []string
	for name := range tensors {
		if !known[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		errs = append(errs, fmt.Errorf("tensor %s is not a param of graph %s", name, p.Graph))
	}
	return joinErrors(p.Graph, errs)
}
