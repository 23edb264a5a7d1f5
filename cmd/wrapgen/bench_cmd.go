package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/synth"
	"github.com/wrapgen/wrapgen/plan"
)

// runBench plans graphs with every strategy and prints peak over the lower
// bound, pool count and planning time, at the hints and at -at values.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stderr)
	strategies := fs.String("strategies", strings.Join(plan.Strategies(), ","), "comma-separated strategies to compare")
	synthOps := fs.String("synth", "10000", "comma-separated op counts of synthetic transformer graphs to add (empty for none)")
	batches := fs.String("batches", "1,8,32", "comma-separated batch values to evaluate each plan at (plans are made at the hints)")
	memoryPool := fs.String("memory-pool", string(plan.PoolIntermediates), "memory pool mode")
	if help, err := parseFlags(fs, "wrapgen bench [flags] [GRAPH.json ...]  (default: ../shared/graphs/*.json)", args); help || err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join("..", "shared", "graphs", "*.json"))
	}
	type input struct {
		name string
		load func() (*graph.Graph, error)
	}
	var inputs []input
	for _, f := range files {
		inputs = append(inputs, input{filepath.Base(f), func() (*graph.Graph, error) { return loadGraph(f, nil) }})
	}
	for _, s := range splitList(*synthOps) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return &usageError{fmt.Sprintf("-synth: %q is not a positive op count", s)}
		}
		inputs = append(inputs, input{fmt.Sprintf("synth-transformer-%d", n), func() (*graph.Graph, error) {
			data, err := synth.Graph(synth.Transformer, n)
			if err != nil {
				return nil, err
			}
			return graph.Parse(fmt.Sprintf("synth-transformer-%d.json", n), data)
		}})
	}
	var batchVals []int64
	for _, s := range splitList(*batches) {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return &usageError{fmt.Sprintf("-batches: %q is not an integer", s)}
		}
		batchVals = append(batchVals, v)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "graph\tstrategy\tpools\tplan ms\t"
	for _, b := range batchVals {
		header += fmt.Sprintf("peak/lb b=%d\t", b)
	}
	fmt.Fprintln(tw, header+"mode/lb\tnaive/lb\t")
	logSum := map[string]float64{}
	worst := map[string]float64{}
	count := map[string]int{}
	for _, in := range inputs {
		g, err := in.load()
		if err != nil {
			return err
		}
		for _, s := range splitList(*strategies) {
			start := time.Now()
			p, err := plan.Make(g, plan.Options{Strategy: s, MemoryPool: plan.MemoryPool(*memoryPool)})
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %w", in.name, err)
			}
			row := fmt.Sprintf("%s\t%s\t%d\t%.1f\t", in.name, p.StrategyText(), len(p.Pools), float64(elapsed.Microseconds())/1000)
			var naive, mode float64
			for i, b := range batchVals {
				env := expr.Env{}
				if g.Symbol("batch") != nil {
					env["batch"] = b
				}
				f, err := p.Figures(env)
				if err != nil {
					return fmt.Errorf("%s at batch %d: %w", in.name, b, err)
				}
				row += fmt.Sprintf("%.4f\t", f.Ratio())
				naive = float64(f.NaiveBytes) / float64(max(f.LoadBytes, 1))
				if i == 0 {
					mode = float64(f.ModeBoundBytes) / float64(max(f.LoadBytes, 1))
				}
				if !strings.HasPrefix(in.name, "synth") {
					logSum[s] += math.Log(f.Ratio())
					worst[s] = max(worst[s], f.Ratio())
					count[s]++
				}
			}
			fmt.Fprintln(tw, row+fmt.Sprintf("%.4f\t%.2f\t", mode, naive))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nover the given graph files (synthetic excluded), every batch:")
	for _, s := range splitList(*strategies) {
		if count[s] > 0 {
			fmt.Fprintf(stdout, "  %-18s geomean %.4f  worst %.4f\n", s, math.Exp(logSum[s]/float64(count[s])), worst[s])
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
