package wgref

import (
	"fmt"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

// attrs reads a call's attributes by name, keeping the first problem, so a
// kernel reads all it needs and checks once:
//
//	a := attrsOf(c)
//	axis, eps := a.Int("axis"), a.Float("epsilon")
//	if a.err != nil { return a.err }
type attrs struct {
	c   *wgrt.Call
	err error
}

func attrsOf(c *wgrt.Call) *attrs { return &attrs{c: c} }

func (a *attrs) find(name string) (any, bool) {
	for _, at := range a.c.Attrs {
		if at.Name == name {
			return at.Value, true
		}
	}
	return nil, false
}

func (a *attrs) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

// Has reports whether the call has the attribute.
func (a *attrs) Has(name string) bool { _, ok := a.find(name); return ok }

// Int reads an int attribute (a bool reads as 0 or 1).
func (a *attrs) Int(name string) int {
	v, ok := a.find(name)
	switch x := v.(type) {
	case int:
		return x
	case bool:
		if x {
			return 1
		}
		return 0
	}
	if !ok {
		a.fail("attribute %q is missing", name)
	} else {
		a.fail("attribute %q is %T, want an int", name, v)
	}
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
	v, ok := a.find(name)
	if x, is := v.([]int); is {
		return x
	}
	if !ok {
		a.fail("attribute %q is missing", name)
	} else {
		a.fail("attribute %q is %T, want an int list", name, v)
	}
	return nil
}

// Float reads a float attribute (an int reads as its value).
func (a *attrs) Float(name string) float64 {
	v, ok := a.find(name)
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	if !ok {
		a.fail("attribute %q is missing", name)
	} else {
		a.fail("attribute %q is %T, want a float", name, v)
	}
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
	v, ok := a.find(name)
	if x, is := v.(string); is {
		return x
	}
	if !ok {
		a.fail("attribute %q is missing", name)
	} else {
		a.fail("attribute %q is %T, want a string", name, v)
	}
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
	v, ok := a.find(name)
	switch x := v.(type) {
	case bool:
		return x
	case int:
		return x != 0
	}
	if !ok {
		a.fail("attribute %q is missing", name)
	} else {
		a.fail("attribute %q is %T, want a bool", name, v)
	}
	return false
}
