package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// attrs reads a call's attributes by name, keeping the first problem, so a
// kernel reads all it needs and checks once:
//
//	a := attrsOf(c)
//	axis, eps := a.Int("axis"), a.Float("epsilon")
//	if a.err != nil { return a.err }
//
// It holds the call's attribute list, not the call: escape analysis does
// not tell a struct's fields apart, so a *wgrt.Call kept beside err would
// leak to every kernel's error result, and a call a fused kernel builds on
// its stack (the producer it runs) would move to the heap on every call.
type attrs struct {
	list []wgrt.Attr
	err  error
}

func attrsOf(c *wgrt.Call) *attrs { return &attrs{list: c.Attrs} }

func (a *attrs) find(name string) *wgrt.Attr {
	for i := range a.list {
		if a.list[i].Name == name {
			return &a.list[i]
		}
	}
	return nil
}

func (a *attrs) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

// want records that the attribute is missing or of another kind.
func (a *attrs) want(name string, at *wgrt.Attr, kind string) {
	if at == nil {
		a.fail("attribute %q is missing", name)
	} else {
		a.fail("attribute %q is %s, want %s", name, kindNames[at.Kind], kind)
	}
}

var kindNames = [...]string{wgrt.AttrInt: "an int", wgrt.AttrFloat: "a float", wgrt.AttrBool: "a bool", wgrt.AttrString: "a string", wgrt.AttrInts: "an int list"}

// scalarFromInput is the float attribute name's value v, or, when the
// importer set its bool attribute flag (name+"_from_input", spelled out by
// the caller: a concatenation would allocate), the one element of input
// *next (which it advances): a value the graph computes at run time.
func scalarFromInput(c *wgrt.Call, a *attrs, name, flag string, v float64, next *int) (float64, error) {
	if !a.Has(flag) || !a.Bool(flag) {
		return v, a.err
	}
	if *next >= len(c.Inputs) || c.Inputs[*next].NumElements() != 1 {
		return 0, fmt.Errorf("%s: %s from input %d, which is missing or not one element", c.Kernel, name, *next)
	}
	t := c.Inputs[*next]
	*next++
	if familyOf(t.DType) == famFloat {
		return loadF(t, 0), nil
	}
	return float64(loadI(t, 0)), nil
}

// Has reports whether the call has the attribute.
func (a *attrs) Has(name string) bool { return a.find(name) != nil }

// Int reads an int attribute (a bool reads as 0 or 1).
func (a *attrs) Int(name string) int {
	at := a.find(name)
	switch {
	case at != nil && at.Kind == wgrt.AttrInt:
		return at.Int
	case at != nil && at.Kind == wgrt.AttrBool:
		if at.Bool {
			return 1
		}
		return 0
	}
	a.want(name, at, "an int")
	return 0
}

// IntOr is Int, or def when the call has no such attribute.
func (a *attrs) IntOr(name string, def int) int {
	if !a.Has(name) {
		return def
	}
	return a.Int(name)
}

// Ints reads an int list attribute. The slice is the caller's: do not
// modify it.
func (a *attrs) Ints(name string) []int {
	at := a.find(name)
	if at != nil && at.Kind == wgrt.AttrInts {
		return at.Ints
	}
	a.want(name, at, "an int list")
	return nil
}

// Float reads a float attribute (an int reads as its value).
func (a *attrs) Float(name string) float64 {
	at := a.find(name)
	switch {
	case at != nil && at.Kind == wgrt.AttrFloat:
		return at.Float
	case at != nil && at.Kind == wgrt.AttrInt:
		return float64(at.Int)
	}
	a.want(name, at, "a float")
	return 0
}

// FloatOr is Float, or def when the call has no such attribute.
func (a *attrs) FloatOr(name string, def float64) float64 {
	if !a.Has(name) {
		return def
	}
	return a.Float(name)
}

// String reads a string attribute.
func (a *attrs) String(name string) string {
	at := a.find(name)
	if at != nil && at.Kind == wgrt.AttrString {
		return at.Str
	}
	a.want(name, at, "a string")
	return ""
}

// StringOr is String, or def when the call has no such attribute.
func (a *attrs) StringOr(name, def string) string {
	if !a.Has(name) {
		return def
	}
	return a.String(name)
}

// Bool reads a bool attribute (an int reads as != 0).
func (a *attrs) Bool(name string) bool {
	at := a.find(name)
	switch {
	case at != nil && at.Kind == wgrt.AttrBool:
		return at.Bool
	case at != nil && at.Kind == wgrt.AttrInt:
		return at.Int != 0
	}
	a.want(name, at, "a bool")
	return false
}
