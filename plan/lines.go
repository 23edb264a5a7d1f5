package plan

import (
	"fmt"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/quote"
)

// LineKind is what one wrapper line does.
type LineKind uint8

const (
	// Before pool planning:
	lineAlloc  LineKind = iota // a storage gets memory
	LineReuse                  // an in-place output takes over a storage
	lineFree                   // a storage's memory is released after its last use
	LineKernel                 // a kernel call
	LineLoopBegin
	LineLoopEnd
	// After pool planning, Alloc and Free become:
	LineAllocFromPool   // a storage is a view of its pool at its offset
	LineDeallocFromPool // a storage's last use has passed
	LinePoolCreate      // a pool's buffer is created
	LinePoolRelease     // a pool's buffer is released
)

var lineKindNames = [...]string{"Alloc", "Reuse", "Free", "Kernel", "LoopBegin", "LoopEnd",
	"AllocFromPool", "DeallocFromPool", "PoolCreate", "PoolRelease"}

func (k LineKind) String() string { return lineKindNames[k] }

// isMemory reports whether the line is a memory planning line: a run of such
// lines is one timestep.
func (k LineKind) isMemory() bool {
	switch k {
	case lineAlloc, LineReuse, lineFree, LineAllocFromPool, LineDeallocFromPool:
		return true
	}
	return false
}

// Line is one line of the wrapper program.
type Line struct {
	Kind   LineKind
	Op     *graph.Op     // Kernel, LoopBegin, LoopEnd; Reuse: the op it precedes
	Buffer *Buffer       // Alloc, Reuse, Free, AllocFromPool, DeallocFromPool
	Tensor *graph.Tensor // the name the line binds: Reuse's new name, Free's last name
	From   *graph.Tensor // Reuse: the name taken over
	chosen bool          // Reuse: chosen by the planner from kernel traits, not declared
	Pool   *Pool         // PoolCreate, PoolRelease, AllocFromPool, DeallocFromPool
	Step   int           // timestep of a memory line (0 for others)
	// firstUse marks the AllocFromPool at which its pool comes into use;
	// lastUse the DeallocFromPool after which its pool is no longer needed.
	firstUse, lastUse bool
	Depth             int // loop nesting depth
}

// String is the line as plan prints it, every graph-given name through
// quote.Text.
func (l *Line) String() string {
	switch l.Kind {
	case LineKernel:
		return fmt.Sprintf("%s %s(%s) -> (%s)", l.Kind, quote.Text(l.Op.Kernel), names(l.Op.Inputs), names(l.Op.Outputs))
	case LineLoopBegin:
		return fmt.Sprintf("%s %s count=%s", l.Kind, l.Op.Place, l.Op.Loop.Count)
	case LineLoopEnd:
		return fmt.Sprintf("%s %s", l.Kind, l.Op.Place)
	case LineReuse:
		if l.chosen {
			return fmt.Sprintf("%s %s = %s (may_alias)", l.Kind, quote.Text(l.Tensor.Name), quote.Text(l.From.Name))
		}
		return fmt.Sprintf("%s %s = %s", l.Kind, quote.Text(l.Tensor.Name), quote.Text(l.From.Name))
	case LinePoolCreate, LinePoolRelease:
		return fmt.Sprintf("%s %s bytes=%s", l.Kind, l.Pool.Name, l.Pool.Size)
	case LineAllocFromPool:
		s := fmt.Sprintf("%s %s = %s[%s : +%s]", l.Kind, quote.Text(l.Tensor.Name), l.Pool.Name, l.Buffer.Offset, l.Buffer.Size)
		if l.firstUse {
			s += " first use"
		}
		return s
	case LineDeallocFromPool:
		s := fmt.Sprintf("%s %s (%s)", l.Kind, quote.Text(l.Tensor.Name), l.Pool.Name)
		if l.lastUse {
			s += " last use"
		}
		return s
	default:
		return fmt.Sprintf("%s %s", l.Kind, quote.Text(l.Tensor.Name))
	}
}

func names(ts []*graph.Tensor) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += quote.Text(t.Name)
	}
	return s
}
