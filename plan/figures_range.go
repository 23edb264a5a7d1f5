package plan

import (
	"math"
	"sort"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
)

// DefaultHorizon is how far a symbol without a max is sampled, unless
// Options.Horizon says otherwise.
const DefaultHorizon = 4096

// RangeFigures are a plan's peak over the lower bound across its symbols'
// ranges, not only at the hints: a wrapper made once runs at every size.
type RangeFigures struct {
	Points  int
	Worst   float64
	WorstAt expr.Env
	Geomean float64
}

// RangeHorizon is how far the range figures sample a symbol without a max.
func (p *Plan) RangeHorizon() int64 {
	if p.Horizon <= 0 {
		return DefaultHorizon
	}
	return p.Horizon
}

// sampleValues are the values a symbol is sampled at: its minimum, the
// powers of two above it up to its max (or the horizon), and its max.
func (p *Plan) sampleValues(s *graph.Symbol) []int64 {
	hi := p.RangeHorizon()
	if s.HasMax {
		hi = s.Max
	}
	vs := []int64{s.Min}
	// v stops at the largest power of two <= hi: doubling past 2^62 would
	// wrap to 0 and never end.
	for v := int64(1); v <= hi; v *= 2 {
		if v > s.Min {
			vs = append(vs, v)
		}
		if v > hi/2 {
			break
		}
	}
	if s.HasMax && vs[len(vs)-1] != s.Max && s.Max > s.Min {
		vs = append(vs, s.Max)
	}
	return vs
}

// samplePoints are the symbol values the range figures are taken at: the
// hints; every symbol at each of its minimum and the powers of two up to
// its max (or the plan's Horizon), together and one at a time (the others at
// their hints).
func (p *Plan) samplePoints() []expr.Env {
	var names []string
	values := map[string][]int64{}
	for _, s := range p.Graph.Symbols {
		if s.RunTime() {
			continue // at its bound, as storages are planned (atBounds)
		}
		names = append(names, s.Name)
		values[s.Name] = p.sampleValues(s)
	}
	sort.Strings(names)
	points := []expr.Env{p.WithHints(nil)}
	seen := map[string]bool{EnvText(points[0]): true}
	add := func(env expr.Env) {
		p.Graph.AtBounds(env)
		if k := EnvText(env); !seen[k] {
			seen[k] = true
			points = append(points, env)
		}
	}
	longest := 0
	for _, n := range names {
		longest = max(longest, len(values[n]))
	}
	for i := 0; i < longest; i++ { // together: the i-th value of each (its last when shorter)
		env := p.WithHints(nil)
		for _, n := range names {
			vs := values[n]
			env[n] = vs[min(i, len(vs)-1)]
		}
		add(env)
	}
	for _, n := range names { // one at a time
		for _, v := range values[n] {
			env := p.WithHints(nil)
			env[n] = v
			add(env)
		}
	}
	return points
}

// MaxRangeBuffers bounds the plans Range samples: each point evaluates
// every storage's offset, which on the largest graphs would cost more than
// planning them.
const MaxRangeBuffers = 20_000

// Range takes the figures at every sample point where they can be counted;
// Points is 0 for a plan with more than MaxRangeBuffers storages.
func (p *Plan) Range() (RangeFigures, error) {
	if len(p.Buffers) > MaxRangeBuffers {
		return RangeFigures{}, nil
	}
	ratios, points := p.ratiosAt(p.samplePoints())
	return figuresOf(ratios, points), nil
}

// ratiosAt is the plan's peak over the lower bound at each point, with the
// points it was taken at: a point where a size does not fit an int64 (a
// symbol without a max sampled up to a large -range-horizon) is left out,
// since no wrapper runs there.
func (p *Plan) ratiosAt(points []expr.Env) ([]float64, []expr.Env) {
	var ratios []float64
	var kept []expr.Env
	for _, env := range points {
		f, err := p.Figures(env)
		if err != nil {
			continue
		}
		ratios = append(ratios, f.Ratio())
		kept = append(kept, env)
	}
	return ratios, kept
}

// figuresOf are the range figures of ratios at points.
func figuresOf(ratios []float64, points []expr.Env) RangeFigures {
	var r RangeFigures
	logSum := 0.0
	for i, ratio := range ratios {
		if r.Points == 0 || ratio > r.Worst {
			r.Worst, r.WorstAt = ratio, points[i]
		}
		logSum += math.Log(ratio)
		r.Points++
	}
	if r.Points > 0 {
		r.Geomean = math.Exp(logSum / float64(r.Points))
	}
	return r
}
