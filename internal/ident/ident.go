// Package ident turns graph names (kernels, tensors, symbols, attributes)
// into identifiers of a target language, and reports names that collide
// after the change, so that no backend silently emits code that does not
// compile or that binds the wrong tensor.
package ident

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
)

// Camel turns a graph name into an ASCII identifier in CamelCase: words are
// separated by underscores or by characters an identifier cannot hold, and
// each starts with a capital. A run of k underscores between words keeps
// k-1 of them and a trailing run keeps all, so PyTorch's "add_" and "add"
// (in-place and not) stay distinct: "add__Tensor" → "Add_Tensor",
// "add_Tensor" → "AddTensor", "relu_" → "Relu_". A leading digit gets an
// "X" in front. ok is false when nothing usable is left.
func Camel(name string) (id string, ok bool) {
	var b strings.Builder
	upper := true
	unders := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_':
			unders++
			upper = true
		case isAlnum(c):
			if unders > 1 && b.Len() > 0 {
				b.WriteString(strings.Repeat("_", unders-1))
			}
			unders = 0
			if upper && c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			upper = false
			b.WriteByte(c)
		default: // a separator that cannot appear in an identifier
			upper = true
		}
	}
	if b.Len() == 0 {
		return "", false
	}
	if unders > 0 {
		b.WriteString(strings.Repeat("_", unders))
	}
	id = b.String()
	if id[0] >= '0' && id[0] <= '9' {
		id = "X" + id
	}
	return id, true
}

// Lower is Camel with the first letter in lower case ("BiasAdd" →
// "biasAdd", "X1x" stays "x1x").
func Lower(name string) (string, bool) {
	id, ok := Camel(name)
	if !ok {
		return "", false
	}
	return strings.ToLower(id[:1]) + id[1:], true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Namer gives identifiers to the names of one kind (kernels, tensors, ...)
// in one scope and collects problems: names that cannot become identifiers
// and names that end up as the same identifier or as a reserved word.
type Namer struct {
	Lang     string          // "Go" or "C++", for messages
	Kind     string          // "kernel", "tensor", ...
	Reserved map[string]bool // keywords and names the generated code uses
	Lower    bool            // lowerCamel instead of Camel
	// Suffix is appended to a name that is reserved instead of reporting
	// it (e.g. "_" for parameters); empty reports a problem.
	Suffix string

	ids   map[string]string // identifier → graph name
	names map[string]string // place and graph name → identifier
	probs graph.ErrorList
}

// Name returns the identifier of a graph name at a place, recording a
// problem (with file and place) when it has none or it collides. Asking
// again for the same place and name gives the same identifier; the same
// name at another place (a tensor and a symbol both called "f", sharing
// one struct) is a second identifier and collides.
func (n *Namer) Name(file, place, name string) string {
	key := place + "\x00" + name
	if id, ok := n.names[key]; ok {
		return id
	}
	if n.ids == nil {
		n.ids, n.names = map[string]string{}, map[string]string{}
	}
	conv := Camel
	if n.Lower {
		conv = Lower
	}
	id, ok := conv(name)
	if !ok {
		n.problem(file, place, "%s name %q has no letters or digits, so it cannot become a %s identifier; rename it", n.Kind, name, n.Lang)
		id = fmt.Sprintf("Invalid%d_", len(n.names))
	}
	for n.Reserved[id] {
		if n.Suffix == "" {
			n.problem(file, place, "%s name %q becomes %s identifier %q, which generated %s cannot declare there (a keyword, a standard library name, or a name the generated code uses); rename it", n.Kind, name, n.Lang, id, n.Lang)
			id += "_"
			break
		}
		id += n.Suffix
	}
	if other, taken := n.ids[id]; taken && other == name {
		n.problem(file, place, "%s name %q is also used for another %s here, and both become %s identifier %q in one scope; rename one", n.Kind, name, n.Kind, n.Lang, id)
		id = fmt.Sprintf("%s_%d", id, len(n.names))
	} else if taken {
		n.problem(file, place, "%s names %q and %q both become %s identifier %q; rename one", n.Kind, other, name, n.Lang, id)
		id = fmt.Sprintf("%s_%d", id, len(n.names))
	}
	n.ids[id], n.names[key] = name, id
	return id
}

func (n *Namer) problem(file, place, format string, args ...any) {
	n.probs = append(n.probs, &graph.Problem{File: file, Place: place, Msg: fmt.Sprintf(format, args...)})
}

// Problems returns what went wrong, in the order found.
func (n *Namer) Problems() graph.ErrorList { return n.probs }

// Set builds a reserved-word set.
func Set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// Merge is the union of word sets.
func Merge(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for k := range s {
			m[k] = true
		}
	}
	return m
}

// KernelParams are the names both backends give a kernel method's tensor
// parameters (out0.., in0.., ins for a variadic list): attribute names must
// not take them.
func KernelParams(k *graph.Kernel) map[string]bool {
	m := map[string]bool{"ins": true}
	if k.Scratch {
		m["scratch"] = true
	}
	for i := 0; i < k.Outputs; i++ {
		m[fmt.Sprintf("out%d", i)] = true
	}
	for i := 0; i < k.Inputs; i++ {
		m[fmt.Sprintf("in%d", i)] = true
	}
	return m
}

// Unreachable reports whether no graph name can become id through Camel or
// Lower: those never put a lower-case letter right after an underscore
// (the letter after a run of underscores is capitalised). Numbered
// families of generated identifiers (loop variables, tables, locals) are
// spelled this way, so they need no reservation against graph names.
func Unreachable(id string) bool {
	for i := 0; i+1 < len(id); i++ {
		if id[i] == '_' && id[i+1] >= 'a' && id[i+1] <= 'z' {
			return true
		}
	}
	return false
}

// Numbered is member i of a family of generated identifiers named by
// prefix, which must be Unreachable ("loop_iter" gives loop_iter0, ...).
func Numbered(prefix string, i int) string {
	if !Unreachable(prefix) {
		panic("ident.Numbered: prefix " + prefix + " can be reached by a graph name") // a bug in wrapgen
	}
	return prefix + strconv.Itoa(i)
}
