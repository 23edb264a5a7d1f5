package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/fuse"
	"github.com/wrapgen/wrapgen/internal/interp"
	"github.com/wrapgen/wrapgen/internal/refscratch"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/plan/report"
)

// planFlags are the flags that choose how a plan is made, shared by every
// command that plans.
type planFlags struct {
	strategy   string
	memoryPool string
	align      int64
	hints      symbolValues
	// mins and maxes bound an ONNX model's symbols (a graph file says its
	// own).
	mins, maxes symbolValues
	// foldWeights folds an ONNX model's weight-preparing nodes at import
	// (onnx.Options.FoldWeights).
	foldWeights bool
	alias       bool
	// kernels is "ref" when the plan is for wrapgen's reference kernels,
	// whose scratch it then places too.
	kernels string
	// packedWeights plans for a runner that packs the products' weights
	// once (wrapgen run): their kernels then ask for less scratch. Wrappers
	// from gen are planned for packing per call, which their Run needs
	// (a Runner made with Options.Prepare leaves that scratch unused).
	packedWeights bool
	// horizon is how far the figures across the range sample a symbol
	// without a max.
	horizon int64
}

func (pf *planFlags) register(fs *flag.FlagSet) {
	pf.hints, pf.mins, pf.maxes = symbolValues{}, symbolValues{}, symbolValues{}
	fs.StringVar(&pf.strategy, "strategy", "", "placement strategy: "+strings.Join(plan.Strategies(), ", ")+" (default "+plan.DefaultStrategy+")")
	fs.StringVar(&pf.memoryPool, "memory-pool", string(plan.PoolIntermediates), "which storages share pools: none, intermediates, outputs, combined")
	fs.Int64Var(&pf.align, "align", plan.DefaultAlign, "byte alignment of every offset (a power of two)")
	fs.BoolVar(&pf.alias, "alias", true, "let outputs take over inputs' storage where the kernels' may_alias traits allow")
	fs.Var(pf.hints, "hint", "plan for symbol `name=value` instead of its hint (repeatable)")
	fs.Var(pf.mins, "min", "for an ONNX model: smallest value of symbol `name=value` (default 1, or what its shapes need; repeatable)")
	fs.Var(pf.maxes, "max", "for an ONNX model: largest value of symbol `name=value` (repeatable)")
	fs.BoolVar(&pf.foldWeights, "fold-weights", true, foldWeightsUsage)
}

// registerHorizon adds -range-horizon, for the commands that report the
// figures across the symbols' ranges.
func (pf *planFlags) registerHorizon(fs *flag.FlagSet) {
	fs.Int64Var(&pf.horizon, "range-horizon", plan.DefaultHorizon, "sample a symbol without a max up to `n` for the figures across the range")
}

// registerKernels adds -kernels, for the commands whose plan depends on
// which kernels run.
func (pf *planFlags) registerKernels(fs *flag.FlagSet, usage string) {
	fs.StringVar(&pf.kernels, "kernels", "", usage)
}

func (pf *planFlags) options() plan.Options {
	return plan.Options{Strategy: pf.strategy, MemoryPool: plan.MemoryPool(pf.memoryPool), Align: pf.align, Hints: expr.Env(pf.hints), NoAlias: !pf.alias, Horizon: pf.horizon}
}

// check refuses flag values no graph could be planned with, as usage
// errors, before any file is read.
func (pf *planFlags) check() error {
	// Zero values mean "the default" to plan; given as flags, they are
	// wrong, and said as the other wrong values are.
	opts := pf.options()
	if opts.Align == 0 {
		return &usageError{(&plan.OptionError{Option: "-align", Value: 0, Want: "a positive power of two"}).Error()}
	}
	if opts.MemoryPool == "" {
		return &usageError{(&plan.OptionError{Option: "-memory-pool", Value: `""`, Want: "none, intermediates, outputs or combined"}).Error()}
	}
	if opts.Horizon == 0 && pf.horizon != 0 {
		return &usageError{(&plan.OptionError{Option: "-range-horizon", Value: 0, Want: "a positive number"}).Error()}
	}
	if err := opts.Check(); err != nil {
		var oe *plan.OptionError
		if errors.As(err, &oe) {
			return &usageError{fmt.Sprintf("-%s %v: want %s", oe.Option, oe.Value, oe.Want)}
		}
		return err
	}
	if pf.kernels != "" && pf.kernels != "ref" {
		return &usageError{fmt.Sprintf("-kernels %q: the only kernels wrapgen has are ref", pf.kernels)}
	}
	return nil
}

// forKernels is g as the kernels run it: with the fused kernels they
// implement (every one for the reference kernels, those the graph's
// "kernels" object declares otherwise) in place of the ops they stand
// for, and, for the reference kernels, the scratch they need, placed in
// the pools like every storage.
func (pf *planFlags) forKernels(g *graph.Graph) (*graph.Graph, error) {
	fusable := g.Traits
	if pf.kernels == "ref" {
		fusable = fuse.Ref
	}
	fused, err := fuse.Apply(g, fusable)
	if err != nil {
		return nil, fusedNameTaken(g, fusable, err)
	}
	if g = fused; pf.kernels != "ref" {
		return g, nil
	}
	if pf.packedWeights {
		return g, g.AddScratch(refscratch.RuleWithPackedWeights)
	}
	return g, g.AddScratch(refscratch.Rule)
}

// fusedNameTaken explains a failed fusion rewrite of g whose own ops call
// a fused kernel (one fusable declares with Fuse, as FusedConv for the
// reference kernels) with a signature of their own: the rewrite then calls
// that kernel two ways, and the rewrite's own message would name a line of
// the rewritten graph. Any other failure is returned as it is.
func fusedNameTaken(g *graph.Graph, fusable map[string]graph.Traits, err error) error {
	var fusedKernels []string
	for k, tr := range fusable {
		if tr.Fuse {
			fusedKernels = append(fusedKernels, k)
		}
	}
	sort.Strings(fusedKernels)
	for _, k := range g.Kernels() {
		if tr, ok := fusable[k.Name]; ok && tr.Fuse {
			return fmt.Errorf("%s: %s: kernel name %q is the name of a fused kernel (%s), which wrapgen writes in place of a matrix product or convolution and the ops after it, and this graph's own %s ops have another signature; rename the graph's kernel",
				g.File, k.First.Label(), k.Name, strings.Join(fusedKernels, ", "), k.Name)
		}
	}
	return err
}

// loadAndPlan reads one graph and plans it.
func (pf *planFlags) loadAndPlan(path string) (*plan.Plan, error) {
	if err := pf.check(); err != nil {
		return nil, err
	}
	g, err := loadGraph(path, modelOptions(pf.hints, pf.mins, pf.maxes, pf.foldWeights))
	if err != nil {
		return nil, err
	}
	if err := checkSymbolValues(g, "-hint", pf.hints); err != nil {
		return nil, err
	}
	if g, err = pf.forKernels(g); err != nil {
		return nil, err
	}
	p, err := plan.Make(g, pf.options())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func oneGraph(fs *flag.FlagSet) (string, error) {
	switch fs.NArg() {
	case 0:
		return "", &usageError{fmt.Sprintf("%s takes one graph file, got none", fs.Name())}
	case 1:
		return fs.Arg(0), nil
	}
	return "", &usageError{fmt.Sprintf("%s takes one graph file, got %d: %s", fs.Name(), fs.NArg(), strings.Join(fs.Args(), " "))}
}

// checkSymbolValues refuses symbol values (of flagName, -hint or -at) that the
// graph does not declare or that lie outside the symbol's [min, max]: a plan
// evaluated there would report sizes the wrapper refuses to run at.
func checkSymbolValues(g *graph.Graph, flagName string, values symbolValues) error {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := values[name]
		s := g.Symbol(name)
		if s == nil {
			return &usageError{fmt.Sprintf("%s %s=%d: graph %s has no symbol %q", flagName, name, v, g.Name, name)}
		}
		if s.RunTime() {
			return &usageError{fmt.Sprintf("%s %s=%d: %s is a size set at run time by %s, at most %s", flagName, name, v, name, s.SetBy.Place, *s.Bound)}
		}
		if v < s.Min || (s.HasMax && v > s.Max) {
			bounds := fmt.Sprintf("[%d, ∞)", s.Min)
			if s.HasMax {
				bounds = fmt.Sprintf("[%d, %d]", s.Min, s.Max)
			}
			return &usageError{fmt.Sprintf("%s %s=%d is outside the symbol's range %s declared in %s", flagName, name, v, bounds, g.File)}
		}
	}
	return nil
}

func runPlan(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("plan", stdout, stderr)
	var pf planFlags
	pf.register(fs)
	at := symbolValues{}
	fs.Var(at, "at", "report figures at symbol `name=value` (the plan is still made at the hints; repeatable)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the text report")
	lines := fs.Bool("lines", true, "include the AllocFromPool / DeallocFromPool program in the text report")
	memMap := fs.Bool("map", false, "include each pool's memory map (offsets and live steps) in the text report")
	svg := fs.String("svg", "", "also write the memory map as an SVG picture to `file`")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of reading and planning the graph to `file` (go tool pprof reads it)")
	quiet := fs.Bool("q", false, "do not name the -svg file written on standard error (as gen, import and run take -q)")
	pf.registerHorizon(fs)
	pf.registerKernels(fs, "`ref`: plan for wrapgen's reference kernels, placing the scratch memory they need too (as gen -kernels ref and run do)")
	if help, err := parseFlags(fs, "wrapgen plan [flags] GRAPH.json", args); help || err != nil {
		return err
	}
	path, err := oneGraph(fs)
	if err != nil {
		return err
	}
	if *svg != "" {
		if err := checkOutput("-svg", *svg, path); err != nil {
			return err
		}
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile, path)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stop()) }()
	}
	p, err := pf.loadAndPlan(path)
	if err != nil {
		return err
	}
	if err := checkSymbolValues(p.Graph, "-at", at); err != nil {
		return err
	}
	env := p.WithHints(expr.Env(at))
	fig, err := p.Figures(env)
	if err != nil {
		return fmt.Errorf("%s: evaluating at %s: %w", path, at, err)
	}
	if pf.kernels == "ref" {
		fig.PackedBytes = refscratch.PackedBytes(p.Graph)
	}
	if len(at) > 0 {
		if fig.RunTimeBytes, err = runTimePeak(p, env); err != nil {
			return fmt.Errorf("%s: laying a wrapper out at %s: %w", path, plan.EnvText(env), err)
		}
	}
	if *svg != "" {
		var buf bytes.Buffer
		if err := report.WriteSVG(&buf, p, fig, ""); err != nil {
			return err
		}
		var named io.Writer = stderr
		if *quiet {
			named = nil
		}
		if err := writeFiles([]outFile{{*svg, buf.Bytes()}}, named); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report.JSON(p, fig))
	}
	return report.WriteReport(stdout, p, fig, report.Options{Lines: *lines, MemoryMap: *memMap})
}

// runTimePeak is the pool bytes a wrapper of p holds at env: its runtime
// (the one every wrapper and run share) laid out there.
func runTimePeak(p *plan.Plan, env expr.Env) (int64, error) {
	m := interp.New(p)
	at := map[string]int{}
	for k, v := range env {
		at[k] = int(v)
	}
	if err := m.LayoutAt(at); err != nil {
		return 0, err
	}
	peak, _ := m.PeakBytes()
	return int64(peak), nil
}
