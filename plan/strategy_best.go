package plan

import "fmt"

// Best runs several strategies, keeps the placement with the smallest peak
// at the hints, and names the winner. A candidate is skipped on requests
// with more buffers than its limit (0: none), and when it has nothing of
// its own to offer (a nil placement).
type Best struct{ Candidates []BestCandidate }

// BestCandidate is a strategy best tries, up to a number of buffers.
type BestCandidate struct {
	Strategy   Strategy
	MaxBuffers int
}

func (Best) Name() string { return "best" }

// Place implements Strategy: the minimum over the candidates' results.
func (s Best) Place(req *Request) (*Placement, error) {
	var best *Placement
	var bestPeak int64
	for _, c := range s.Candidates {
		if c.MaxBuffers > 0 && len(req.Buffers) > c.MaxBuffers {
			continue
		}
		placed, err := c.Strategy.Place(req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Strategy.Name(), err)
		}
		if placed == nil {
			continue
		}
		peak, err := placed.peakAt(req.Hints)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Strategy.Name(), err)
		}
		if best == nil || peak < bestPeak {
			best, bestPeak = placed, peak
			best.Winner = c.Strategy.Name()
		}
	}
	return best, nil
}

// timeSplitBestLimit keeps time splitting out of "best" on graphs so large
// that trying cuts would dominate planning time.
const timeSplitBestLimit = 200_000

// inductorBestLimit keeps Inductor's planner out of "best" on graphs so
// large that its tree search dominates planning time.
const inductorBestLimit = 5_000

var (
	greedySize      = Greedy{"greedy-size", []order{bySize}, false}
	greedyLifetime  = Greedy{"greedy-lifetime", []order{byLifetime}, false}
	greedyArea      = Greedy{"greedy-area", []order{byArea}, false}
	greedyConflicts = Greedy{"greedy-conflicts", []order{byConflicts}, false}
	search          = Greedy{"search", []order{bySize, byArea, byConflicts, byLifetime}, true}
	split           = TimeSplit{name: "split", inner: search}
)

// strategyTable lists every strategy by which -strategy names it.
var strategyTable = []Strategy{
	greedySize, greedyLifetime, greedyArea, greedyConflicts, search, split, Inductor{},
	Best{Candidates: []BestCandidate{
		{search, 0},
		{TimeSplit{name: "split", inner: search, onlyIfCut: true}, timeSplitBestLimit},
		{Inductor{}, inductorBestLimit},
	}},
}
