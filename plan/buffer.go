package plan

import (
	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/internal/quote"
)

// Buffer is one planned storage: a buffer group in Inductor's planner's terms, the
// storage of one tensor together with every tensor that took it over in
// place.
type Buffer struct {
	ID      int             // index in Plan.Buffers
	Tensors []*graph.Tensor // the owner first, then the tensors that took it over in place (declared, or chosen by the planner)
	device  string
	Size    expr.Expr // bytes
	hint    int64     // Size at the planning hints
	Output  bool      // an output is (or views) this storage: never freed

	// Live range in timesteps, [Begin, End): Begin is the step of its
	// allocation, End the step of its free (outputs: one past the last step).
	Begin, End int

	// Placement, set by a strategy.
	Pool   *Pool
	Offset expr.Expr
}

// Owner is the tensor that first owns the storage.
func (b *Buffer) Owner() *graph.Tensor { return b.Tensors[0] }

// lifetime is the number of timesteps the buffer is live.
func (b *Buffer) lifetime() int { return b.End - b.Begin }

// Pool is one byte buffer holding several storages at fixed offsets.
type Pool struct {
	Name    string
	Device  string
	Size    expr.Expr // bytes
	Buffers []*Buffer
	// Live range: from the first use of any of its buffers to the last.
	Begin, End int
}

func (p *Pool) updateRange() {
	p.Begin, p.End = 0, 0
	for i, b := range p.Buffers {
		if i == 0 || b.Begin < p.Begin {
			p.Begin = b.Begin
		}
		if b.End > p.End {
			p.End = b.End
		}
	}
}

// TensorNames are the names of Tensors, in order, for people to read
// (through quote.Text).
func (b *Buffer) TensorNames() []string {
	out := make([]string, len(b.Tensors))
	for i, t := range b.Tensors {
		out[i] = quote.Text(t.Name)
	}
	return out
}
