package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// planFlags are the flags that choose how a plan is made, shared by every
// command that plans.
type planFlags struct {
	strategy   string
	memoryPool string
	align      int64
	hints      symbolValues
}

func (pf *planFlags) register(fs *flag.FlagSet) {
	pf.hints = symbolValues{}
	fs.StringVar(&pf.strategy, "strategy", "", "placement strategy: "+strings.Join(plan.Strategies(), ", ")+" (default "+plan.DefaultStrategy+")")
	fs.StringVar(&pf.memoryPool, "memory-pool", string(plan.PoolIntermediates), "which storages share pools: none, intermediates, outputs, combined")
	fs.Int64Var(&pf.align, "align", plan.DefaultAlign, "byte alignment of every offset (a power of two)")
	fs.Var(pf.hints, "hint", "plan for symbol `name=value` instead of its hint (repeatable)")
}

func (pf *planFlags) options() plan.Options {
	return plan.Options{Strategy: pf.strategy, MemoryPool: plan.MemoryPool(pf.memoryPool), Align: pf.align, Hints: expr.Env(pf.hints)}
}

// loadAndPlan reads one graph and plans it.
func (pf *planFlags) loadAndPlan(path string) (*plan.Plan, error) {
	g, err := loadGraph(path, pf.hints)
	if err != nil {
		return nil, err
	}
	p, err := plan.Make(g, pf.options())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func oneGraph(fs *flag.FlagSet) (string, error) {
	if fs.NArg() != 1 {
		return "", &usageError{fmt.Sprintf("%s takes one graph file, got %d arguments", fs.Name(), fs.NArg())}
	}
	return fs.Arg(0), nil
}

func runPlan(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plan", stderr)
	var pf planFlags
	pf.register(fs)
	at := symbolValues{}
	fs.Var(at, "at", "report figures at symbol `name=value` (the plan is still made at the hints; repeatable)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the text report")
	lines := fs.Bool("lines", true, "include the AllocFromPool / DeallocFromPool program in the text report")
	memMap := fs.Bool("map", false, "include each pool's memory map (offsets and live steps) in the text report")
	svg := fs.String("svg", "", "also write the memory map as an SVG picture to `file`")
	if help, err := parseFlags(fs, "wrapgen plan [flags] GRAPH.json", args); help || err != nil {
		return err
	}
	path, err := oneGraph(fs)
	if err != nil {
		return err
	}
	p, err := pf.loadAndPlan(path)
	if err != nil {
		return err
	}
	for name := range at {
		if p.Graph.Symbol(name) == nil {
			return &usageError{fmt.Sprintf("-at %s: graph %s has no symbol %q", name, p.Graph.Name, name)}
		}
	}
	fig, err := p.Figures(expr.Env(at))
	if err != nil {
		return fmt.Errorf("%s: evaluating at %s: %w", path, at, err)
	}
	if *svg != "" {
		var buf bytes.Buffer
		if err := plan.WriteSVG(&buf, p, fig); err != nil {
			return err
		}
		if err := writeFiles([]outFile{{*svg, buf.Bytes()}}); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(planJSON(p, fig))
	}
	return plan.WriteReport(stdout, p, fig, plan.ReportOptions{Lines: *lines, MemoryMap: *memMap})
}
