package wgrt

// Pools hands a wrapper the byte buffer of each planned pool: Acquire at
// the pool's first use, Release right after its last.
type Pools interface {
	Acquire(pool int, device string, size, align int) ([]byte, error)
	Release(pool int, device string, buf []byte)
}

// FreshPools allocates every pool anew from its device's allocator and
// frees it at release: nothing is kept between calls.
type FreshPools struct{ Allocators Allocators }

// Acquire allocates the pool.
func (p FreshPools) Acquire(_ int, device string, size, align int) ([]byte, error) {
	a, err := p.Allocators.For(device)
	if err != nil {
		return nil, err
	}
	return a.Alloc(size, align)
}

// Release frees the pool.
func (p FreshPools) Release(_ int, device string, buf []byte) {
	if a, err := p.Allocators.For(device); err == nil {
		a.Free(buf)
	}
}

// KeptPools keeps every pool's buffer between calls, growing it when a call
// needs more, so a steady stream of calls of the same sizes allocates
// nothing. When a call runs another plan (a wrapper with size buckets, at
// sizes of another bucket), it frees what it kept first: it keeps one
// bucket's pools, never the largest of each pool across buckets. It is not
// safe for concurrent use.
type KeptPools struct {
	Allocators Allocators
	bufs       [][]byte
	devices    []string
	plan       int
}

// planKeeper is told which plan a run uses before its first Acquire.
type planKeeper interface{ usePlan(plan int) }

func (p *KeptPools) usePlan(plan int) {
	if plan != p.plan {
		p.Close()
		p.plan = plan
	}
}

// Acquire returns the kept buffer of the pool, grown to size if needed.
func (p *KeptPools) Acquire(pool int, device string, size, align int) ([]byte, error) {
	for len(p.bufs) <= pool {
		p.bufs = append(p.bufs, nil)
		p.devices = append(p.devices, "")
	}
	if buf := p.bufs[pool]; buf != nil && cap(buf) >= size && p.devices[pool] == device {
		return buf[:size], nil
	}
	a, err := p.Allocators.For(device)
	if err != nil {
		return nil, err
	}
	if old := p.bufs[pool]; old != nil {
		if oa, err := p.Allocators.For(p.devices[pool]); err == nil {
			oa.Free(old[:cap(old)])
		}
	}
	buf, err := a.Alloc(size, align)
	if err != nil {
		p.bufs[pool] = nil
		return nil, err
	}
	p.bufs[pool], p.devices[pool] = buf, device
	return buf, nil
}

// Release keeps the buffer for the next call.
func (p *KeptPools) Release(int, string, []byte) {}

// Close frees every kept buffer.
func (p *KeptPools) Close() {
	for i, buf := range p.bufs {
		if buf != nil {
			if a, err := p.Allocators.For(p.devices[i]); err == nil {
				a.Free(buf[:cap(buf)])
			}
		}
	}
	p.bufs, p.devices = nil, nil
}
