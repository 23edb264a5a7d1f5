package emit

import "github.com/wrapgen/wrapgen/graph"

// IntAttrs sorts the int-list attributes of the kernel ops into the two
// kinds every backend emits differently: constant lists, declared once each,
// and symbolic lists, computed on each run into an array of the frame.
type IntAttrs struct {
	// Consts are the distinct constant lists as ConstList writes them, in
	// the order first used.
	Consts   []string
	constIdx map[string]int
	sym      map[*graph.Op]map[int]SymbolicInts
	// NumSymbolic counts the symbolic lists; NumValues their values.
	NumSymbolic, NumValues int
}

// SymbolicInts places one symbolic list: it is list Index of all symbolic
// lists, and its values start at Offset of all their values.
type SymbolicInts struct{ Index, Offset int }

func newIntAttrs(ops []*graph.Op) *IntAttrs {
	ia := &IntAttrs{constIdx: map[string]int{}, sym: map[*graph.Op]map[int]SymbolicInts{}}
	for _, op := range ops {
		for i, a := range op.Attrs {
			if a.Kind != graph.AttrInts {
				continue
			}
			if lit, ok := ConstList(a.Ints); ok {
				if _, seen := ia.constIdx[lit]; !seen {
					ia.constIdx[lit] = len(ia.Consts)
					ia.Consts = append(ia.Consts, lit)
				}
				continue
			}
			if ia.sym[op] == nil {
				ia.sym[op] = map[int]SymbolicInts{}
			}
			ia.sym[op][i] = SymbolicInts{ia.NumSymbolic, ia.NumValues}
			ia.NumSymbolic++
			ia.NumValues += len(a.Ints)
		}
	}
	return ia
}

// Symbolic places attribute i of op if it is a symbolic int list.
func (ia *IntAttrs) Symbolic(op *graph.Op, i int) (SymbolicInts, bool) {
	s, ok := ia.sym[op][i]
	return s, ok
}

// Const is the index in Consts of a constant list as ConstList writes it.
func (ia *IntAttrs) Const(lit string) int { return ia.constIdx[lit] }
