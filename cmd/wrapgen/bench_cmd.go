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
	"github.com/wrapgen/wrapgen/internal/synth"
	"github.com/wrapgen/wrapgen/plan"
)

// runBench plans graphs with every strategy and prints peak over the lower
// bound, pool count and planning time, at the hints and at -at values.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", stdout, stderr)
	strategies := fs.String("strategies", strings.Join(plan.Strategies(), ","), "comma-separated strategies to compare")
	synthOps := fs.String("synth", "10000", "comma-separated op counts of synthetic transformer graphs to add (empty for none)")
	batches := fs.String("batches", "1,8,32", "comma-separated batch values to evaluate each plan at (plans are made at the hints)")
	memoryPool := fs.String("memory-pool", string(plan.PoolIntermediates), "memory pool mode")
	alias := fs.Bool("alias", true, "let outputs take over inputs' storage where the kernels' may_alias traits allow")
	if help, err := parseFlags(fs, "wrapgen bench [flags] [GRAPH.json ...]  (default: the graphs in "+strings.Join(defaultBenchDirs, " or ")+")", args); help || err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		var err error
		if files, err = defaultBenchGraphs(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrapgen bench: no graph arguments, using %d graphs from %s\n", len(files), filepath.Dir(files[0]))
	}
	type input struct {
		name string
		load func() (*graph.Graph, error)
	}
	var inputs []input
	for _, f := range files {
		inputs = append(inputs, input{filepath.Base(f), func() (*graph.Graph, error) { return loadGraph(f, modelOptions(nil, nil, nil, true)) }})
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
	fmt.Fprintln(tw, header+"mode/lb\tnaive/lb\tin place\tpeak/declared lb\t")
	logSum := map[string]float64{}
	worst := map[string]float64{}
	count := map[string]int{}
	// Against the bound with declared inplace only: what aliasing gained.
	declLogSum := map[string]float64{}
	declWorst := map[string]float64{}
	for _, in := range inputs {
		g, err := in.load()
		if err != nil {
			return err
		}
		for _, s := range splitList(*strategies) {
			start := time.Now()
			p, err := plan.Make(g, plan.Options{Strategy: s, MemoryPool: plan.MemoryPool(*memoryPool), NoAlias: !*alias})
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %w", in.name, err)
			}
			row := fmt.Sprintf("%s\t%s\t%d\t%.1f\t", in.name, p.StrategyText(), len(p.Pools), float64(elapsed.Microseconds())/1000)
			var naive, mode, decl float64
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
				overDecl := float64(f.PeakBytes) / float64(max(f.DeclaredLoadBytes, 1))
				if i == 0 {
					mode = float64(f.ModeBoundBytes) / float64(max(f.LoadBytes, 1))
					decl = overDecl
				}
				if !strings.HasPrefix(in.name, "synth") {
					logSum[s] += math.Log(f.Ratio())
					worst[s] = max(worst[s], f.Ratio())
					declLogSum[s] += math.Log(overDecl)
					declWorst[s] = max(declWorst[s], overDecl)
					count[s]++
				}
			}
			fmt.Fprintln(tw, row+fmt.Sprintf("%.4f\t%.2f\t%d\t%.4f\t", mode, naive, p.AliasedOps, decl))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nover the given graph files (synthetic excluded), every batch:")
	for _, s := range splitList(*strategies) {
		if count[s] > 0 {
			fmt.Fprintf(stdout, "  %-18s peak/lb geomean %.4f  worst %.4f   peak/declared lb geomean %.4f  worst %.4f\n", s,
				math.Exp(logSum[s]/float64(count[s])), worst[s], math.Exp(declLogSum[s]/float64(count[s])), declWorst[s])
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

// defaultBenchDirs are where bench looks for graphs when given none: the
// real graphs beside a checkout (CI), then the repository's copies of them.
var defaultBenchDirs = []string{filepath.Join("..", "shared", "graphs"), filepath.Join("graph", "testdata")}

// defaultBenchGraphs returns the graphs of the first default directory that
// has any, and an error rather than an empty benchmark when none has.
func defaultBenchGraphs() ([]string, error) {
	for _, dir := range defaultBenchDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) > 0 {
			return files, nil
		}
	}
	return nil, &usageError{fmt.Sprintf("bench: no graph files given and none found in %s (run from the repository root, or name GRAPH.json files)", strings.Join(defaultBenchDirs, " or "))}
}
