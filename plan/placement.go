package plan

import "github.com/wrapgen/wrapgen/graph/expr"

// Placement is what a strategy returns, as XLA's heap simulator results
// are: the pools, each with its buffers and symbolic size, and each
// buffer's pool and offset. Making one changes nothing a request holds;
// Make applies the one kept.
type Placement struct {
	Pools []*Pool
	// Winner names, for strategies that choose among others, the one whose
	// placement this is.
	Winner string
	pool   []*Pool     // by buffer ID
	offset []expr.Expr // by buffer ID
}

func newPlacement(req *Request) *Placement {
	return &Placement{pool: make([]*Pool, len(req.Buffers)), offset: make([]expr.Expr, len(req.Buffers))}
}

// put places b in pool at off.
func (pl *Placement) put(b *Buffer, pool *Pool, off expr.Expr) {
	pl.pool[b.ID], pl.offset[b.ID] = pool, off
	pool.Buffers = append(pool.Buffers, b)
}

// Offset is where the placement puts b.
func (pl *Placement) Offset(b *Buffer) (*Pool, expr.Expr) { return pl.pool[b.ID], pl.offset[b.ID] }

// apply writes the placement into the buffers: the one step that changes
// them, done once for the placement kept.
func (pl *Placement) apply(buffers []*Buffer) {
	for _, b := range buffers {
		b.Pool, b.Offset = pl.pool[b.ID], pl.offset[b.ID]
	}
}

// peakAt is the placement's peak at the hints: the largest total of pool
// bytes alive at any step.
func (pl *Placement) peakAt(hints expr.Env) (int64, error) {
	var evs []event
	for _, p := range pl.Pools {
		p.updateRange()
		n, err := p.Size.Eval(hints)
		if err != nil {
			return 0, err
		}
		evs = append(evs, event{p.Begin, n}, event{p.End, -n})
	}
	return maxLive(evs), nil
}
