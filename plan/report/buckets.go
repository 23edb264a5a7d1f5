package report

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// Bucket is the -json form of one size bucket (wrapgen plan -buckets).
type Bucket struct {
	Ranges       string   `json:"ranges"`
	Hints        expr.Env `json:"hints"`
	PeakBytes    int64    `json:"peak_bytes"` // at the bucket's hints
	LoadBytes    int64    `json:"load_bytes"`
	RangeWorst   float64  `json:"range_worst"`
	RangeWorstAt expr.Env `json:"range_worst_at"`
	RangeGeomean float64  `json:"range_geomean"`
	RangePoints  int      `json:"range_points"`
}

// Buckets is the -json form of a bucketed plan: each bucket, the worst
// and geomean peak over the bound across all their sample points, and the
// bucket the wrapper picks at the -at values (the hints where not given).
type Buckets struct {
	Buckets []Bucket `json:"buckets"`
	Worst   float64  `json:"range_worst"`
	Geomean float64  `json:"range_geomean"`
	Points  int      `json:"range_points"`
	At      int      `json:"at_bucket"`
}

// BucketsJSON describes p's buckets; at (over p's hints) picks the bucket
// reported as At.
func BucketsJSON(p *plan.Plan, at expr.Env) (Buckets, error) {
	bs := p.Buckets
	out := Buckets{At: plan.PickBucket(bs, p.WithHints(at))}
	logSum := 0.0
	for _, b := range bs {
		f, err := b.Plan.Figures(nil)
		if err != nil {
			return out, err
		}
		out.Buckets = append(out.Buckets, Bucket{Ranges: plan.RangesText(b.Ranges), Hints: b.Plan.Hints, PeakBytes: f.PeakBytes,
			LoadBytes: f.LoadBytes, RangeWorst: b.Range.Worst, RangeWorstAt: b.Range.WorstAt, RangeGeomean: b.Range.Geomean,
			RangePoints: b.Range.Points})
		out.Worst = math.Max(out.Worst, b.Range.Worst)
		logSum += math.Log(b.Range.Geomean) * float64(b.Range.Points)
		out.Points += b.Range.Points
	}
	if out.Points > 0 {
		out.Geomean = math.Exp(logSum / float64(out.Points))
	}
	return out, nil
}

// WriteBuckets prints each of p's buckets: its range, hints, peak and
// bound at its hints, and its figures across its range.
func WriteBuckets(w io.Writer, p *plan.Plan, at expr.Env) error {
	bs := p.Buckets
	j, err := BucketsJSON(p, at)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nbuckets\t%d: worst %.4f, geomean %.4f over %d points\n", len(bs), j.Worst, j.Geomean, j.Points)
	for i, b := range j.Buckets {
		mark := ""
		if i == j.At {
			mark = " (the wrapper's plan at the values above)"
		}
		fmt.Fprintf(tw, "  bucket %d\t%s%s\n", i, b.Ranges, mark)
		fmt.Fprintf(tw, "    planned at\t%s: peak %s, lower bound %s\n", plan.EnvText(b.Hints), Bytes(b.PeakBytes), Bytes(b.LoadBytes))
		fmt.Fprintf(tw, "    across it\tworst %.4f at %s, geomean %.4f over %d points\n", b.RangeWorst, plan.EnvText(b.RangeWorstAt), b.RangeGeomean, b.RangePoints)
	}
	return tw.Flush()
}
