package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
)

// request is what a strategy places: buffers with live ranges and sizes.
type request struct {
	buffers []*Buffer
	mode    MemoryPool
	align   int64
	bounds  expr.Bounds // symbol ranges: placements must hold for all of them
	hints   expr.Env
	// points are the range figures' sample points (none for graphs too
	// large to sample): best prefers, among placements near the smallest
	// peak at the hints, the one whose worst ratio across them is least.
	points []expr.Env

	groups []poolGroup // poolGroups' result, made once for every strategy
}

// strategy places every buffer of a request in a pool at an offset and
// returns the placement, leaving the request as it was. Offsets and sizes
// must be correct for every symbol value within the request's bounds.
type strategy interface {
	name() string
	place(req *request) (*placement, error)
}

// DefaultStrategy is used when Options.Strategy is empty.
const DefaultStrategy = "best"

// Strategies lists the strategy names, sorted.
func Strategies() []string {
	var out []string
	for _, s := range strategyTable {
		out = append(out, s.name())
	}
	sort.Strings(out)
	return out
}

// strategyByName finds a strategy; "" is the default.
func strategyByName(name string) (strategy, error) {
	if name == "" {
		name = DefaultStrategy
	}
	for _, s := range strategyTable {
		if s.name() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown strategy %q (one of %s)", name, strings.Join(Strategies(), ", "))
}

// timeSplitBestLimit keeps time splitting out of "best" on graphs so large
// that trying cuts would dominate planning time.
const timeSplitBestLimit = 200_000

// inductorBestLimit keeps Inductor's planner out of "best" on graphs so
// large that its tree search dominates planning time.
const inductorBestLimit = 5_000

var (
	greedySize      = greedy{"greedy-size", []order{bySize}, false}
	greedyLifetime  = greedy{"greedy-lifetime", []order{byLifetime}, false}
	greedyArea      = greedy{"greedy-area", []order{byArea}, false}
	greedyConflicts = greedy{"greedy-conflicts", []order{byConflicts}, false}
	search          = greedy{"search", []order{bySize, byArea, byConflicts, byLifetime}, true}
	split           = timeSplit{label: "split", inner: search}
)

// strategyTable lists every strategy by which -strategy names it.
var strategyTable = []strategy{
	greedySize, greedyLifetime, greedyArea, greedyConflicts, search, split, inductor{},
	bestOf{candidates: []bestCandidate{
		{search, 0},
		{timeSplit{label: "split", inner: search, onlyIfCut: true}, timeSplitBestLimit},
		{inductor{}, inductorBestLimit},
	}},
}
