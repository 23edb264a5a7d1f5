package plan

import "fmt"

// bestOf runs several strategies, keeps the placement with the smallest peak
// at the hints, and names the winner. A candidate is skipped on requests
// with more buffers than its limit (0: none), and when it has nothing of
// its own to offer (a nil placement).
type bestOf struct{ candidates []bestCandidate }

// bestCandidate is a strategy bestOf tries, up to a number of buffers.
type bestCandidate struct {
	strategy   strategy
	maxBuffers int
}

func (bestOf) name() string { return "best" }

// place is the minimum over the candidates' results.
func (s bestOf) place(req *request) (*placement, error) {
	var best *placement
	var bestPeak int64
	for _, c := range s.candidates {
		if c.maxBuffers > 0 && len(req.buffers) > c.maxBuffers {
			continue
		}
		placed, err := c.strategy.place(req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.strategy.name(), err)
		}
		if placed == nil {
			continue
		}
		peak, err := placed.peakAt(req.hints)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.strategy.name(), err)
		}
		if best == nil || peak < bestPeak {
			best, bestPeak = placed, peak
			best.winner = c.strategy.name()
		}
	}
	return best, nil
}
