package onnx

import (
	"fmt"
	"slices"
	"strings"
)

// schemaVersion is one version of an operator: the opset it starts at and
// its attributes' names.
type schemaVersion struct {
	since int64
	attrs []string
}

// checkAttributes refuses an attribute that the operator does not have at
// the model's opset (onnx.checker refuses it too): dropped, it would
// change what the model computes (ReduceSum's axes at opset 13 reduce over
// every axis). Operators ONNX's schemas do not list are left to their rule.
func checkAttributes(n *nodeProto, opset int64) error {
	versions := schemaAttrs[n.opType]
	if n.domain != "" || len(versions) == 0 {
		return nil
	}
	var v *schemaVersion
	for i := range versions {
		if versions[i].since <= opset {
			v = &versions[i]
		}
	}
	if v == nil {
		return fmt.Errorf("%s does not exist at opset %d (it starts at opset %d)", n.opType, opset, versions[0].since)
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
