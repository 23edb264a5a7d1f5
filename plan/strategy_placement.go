package plan

import "github.com/wrapgen/wrapgen/graph/expr"

// placement is what a strategy returns, as XLA's heap simulator results
// are: the pools, each with its buffers and symbolic size, and each
// buffer's pool and offset. Making one changes nothing a request holds;
// Make applies the one kept.
type placement struct {
	pools []*Pool
	// winner names, for strategies that choose among others, the one whose
	// placement this is.
	winner string
	pool   []*Pool     // by buffer ID
	offset []expr.Expr // by buffer ID
}

func newPlacement(req *request) *placement {
	return &placement{pool: make([]*Pool, len(req.buffers)), offset: make([]expr.Expr, len(req.buffers))}
}

// put places b in pool at off.
func (pl *placement) put(b *Buffer, pool *Pool, off expr.Expr) {
	pl.pool[b.ID], pl.offset[b.ID] = pool, off
	pool.Buffers = append(pool.Buffers, b)
}

// apply writes the placement into the buffers: the one step that changes
// them, done once for the placement kept.
func (pl *placement) apply(buffers []*Buffer) {
	for _, b := range buffers {
		b.Pool, b.Offset = pl.pool[b.ID], pl.offset[b.ID]
	}
}

// peakAt is the placement's peak at the hints: the largest total of pool
// bytes alive at any step.
func (pl *placement) peakAt(hints expr.Env) (int64, error) {
	var evs []event
	for _, p := range pl.pools {
		p.updateRange()
		n, err := p.Size.Eval(hints)
		if err != nil {
			return 0, err
		}
		evs = append(evs, event{p.Begin, n}, event{p.End, -n})
	}
	return maxLive(evs), nil
}
