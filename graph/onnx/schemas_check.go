package onnx

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// schemaVersion is one version of an operator: the opset it starts at, its
// attributes' names and how many inputs it takes. The first minInputs
// inputs are required and the rest, up to maxInputs, optional, except in
// Loop and Scan, whose optional inputs come first (loop.go reads their
// inputs itself).
type schemaVersion struct {
	since                int64
	attrs                []string
	minInputs, maxInputs int
}

// variadic is the maxInputs of an operator whose last input repeats.
const variadic = math.MaxInt32

// schemaAt is the version of n's operator at opset: nil for an operator
// the schemas do not list, an error for one that starts after opset.
func schemaAt(n *nodeProto, opset int64) (*schemaVersion, error) {
	versions := opSchemas[n.opType]
	if n.domain != "" || len(versions) == 0 {
		return nil, nil
	}
	var v *schemaVersion
	for i := range versions {
		if versions[i].since <= opset {
			v = &versions[i]
		}
	}
	if v == nil {
		return nil, fmt.Errorf("%s does not exist at opset %d (it starts at opset %d)", n.opType, opset, versions[0].since)
	}
	return v, nil
}

// checkAttributes refuses an attribute that the operator does not have at
// the model's opset (onnx.checker refuses it too): dropped, it would
// change what the model computes (ReduceSum's axes at opset 13 reduce over
// every axis). Operators ONNX's schemas do not list are left to their rule.
func checkAttributes(n *nodeProto, opset int64) error {
	v, err := schemaAt(n, opset)
	if v == nil {
		return err
	}
	for _, a := range n.attrs {
		if slices.Contains(v.attrs, a.name) {
			continue
		}
		has := "no attributes"
		if len(v.attrs) > 0 {
			has = "attributes " + strings.Join(v.attrs, ", ")
		}
		return fmt.Errorf("attribute %q is not one of %s's at opset %d (version %d has %s)", a.name, n.opType, opset, v.since, has)
	}
	return nil
}

// checkInputs refuses a node with too few or too many inputs for its
// operator at opset, or with a required one omitted (named ""), as
// onnx.checker does, so that rules read their required inputs unchecked.
// key, the node's rule, finds the counts of an operator the schemas do not
// list. ONNX lets a variadic operator's inputs be omitted too, but no rule
// can use that.
func checkInputs(n *nodeProto, key string, opset int64) error {
	v, err := schemaAt(n, opset)
	if err != nil {
		return err
	}
	fewest, most, atOpset := 0, 0, ""
	if v != nil {
		fewest, most, atOpset = v.minInputs, v.maxInputs, fmt.Sprintf(" at opset %d", opset)
	} else if counts, ok := unlistedInputs[key]; ok {
		fewest, most = counts[0], counts[1]
	} else {
		return fmt.Errorf("internal: the rule for %s does not say how many inputs it takes", key)
	}
	if got := len(n.inputs); got < fewest || got > most {
		return fmt.Errorf("takes %s%s, got %d", inputCount(fewest, most), atOpset, got)
	}
	for k, name := range n.inputs {
		switch {
		case name != "":
		case most == variadic:
			return unsup("input %d is omitted (its name is empty): wrapgen needs every input of a variadic operator", k)
		case k < fewest:
			return fmt.Errorf("input %d is required but its name is empty", k)
		}
	}
	return nil
}

// inputCount says how many inputs an operator takes: "1 input", "2 to 3
// inputs", "at least 1 input".
func inputCount(fewest, most int) string {
	inputs := func(n int) string {
		if n == 1 {
			return "1 input"
		}
		return fmt.Sprintf("%d inputs", n)
	}
	switch {
	case most == variadic:
		return "at least " + inputs(fewest)
	case fewest == most:
		return inputs(fewest)
	}
	return fmt.Sprintf("%d to %d inputs", fewest, most)
}
