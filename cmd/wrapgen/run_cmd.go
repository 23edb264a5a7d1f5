package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/onnx"
	"github.com/wrapgen/wrapgen/internal/cppref"
	"github.com/wrapgen/wrapgen/internal/interp"
	"github.com/wrapgen/wrapgen/internal/quote"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/emit"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

const runUsage = `wrapgen run [-lang go|cpp] [-in FILE]... [-params W.safetensors] [-at name=value] [-out DIR] [-repeat N] [-threads N] [plan flags] MODEL.onnx|GRAPH.json

Runs the model in process with wrapgen's reference kernels, through the
same tables and Go runtime a generated wrapper uses. With -lang cpp the
kernels are the C++ ones (what gen -lang cpp -kernels ref writes), built
once with $CXX (default g++) into the user cache directory: each call's
tensors are handed to them, the params once (-pack-weights packs them
with wgref::Prepare, as a C++ Runner with Options::prepare does), and
times are the kernels' own, measured in the C++ process. Inputs come from -in
files (.npy or ONNX TensorProto .pb), one per data input, or are random
(-seed): a .pb whose tensor has a name feeds the input of that name; the
other files feed the remaining inputs in the graph's order. An ONNX
model's initializers are its params; a format-v1 graph's come from
-params. Prints each output (or writes
DIR/output_<i>.npy with -out), and with -repeat the time per call (wall
and process CPU time, min and median) and the pools' peak bytes.`

// maxRunThreads is the most threads run takes: wgref's cap (SetThreads),
// above which a count would be reported but not run.
const maxRunThreads = 1024

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func runRun(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("run", stdout, stderr)
	var pf planFlags
	pf.register(fs)
	var ins stringList
	fs.Var(&ins, "in", "an input `file` (.npy or .pb; repeatable; default: random inputs): a named .pb tensor feeds the input of its name, the rest the remaining inputs in the graph's order")
	params := fs.String("params", "", "the params (weights) of a format-v1 graph, or of a model exported with its weights as inputs, from a safetensors `file`")
	at := symbolValues{}
	fs.Var(at, "at", "run at symbol `name=value` (random inputs take their shapes from it; given inputs must agree)")
	outDir := fs.String("out", "", "write each output to `dir`/output_<i>.npy instead of printing it")
	repeat := fs.Int("repeat", 1, "run `n` times and print the time per call (min and median) and the pools' peak bytes")
	threads := fs.Int("threads", runtime.GOMAXPROCS(0), "goroutines the reference kernels may use (matrix products, convolutions, pooling, normalization and large elementwise maps split over them; same results at any count); the default is the CPUs the process may use, as ONNX Runtime's")
	seed := fs.Int64("seed", 1, "seed of the random inputs")
	quiet := fs.Bool("q", false, "print no progress and do not name the files -out writes")
	packWeights := fs.Bool("pack-weights", true, "pack the params that are matrix products' and convolutions' weights into the kernels' panels once, when they are bound (false: pack them on every call, and hold no packed copy)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the calls to `file` (go tool pprof reads it)")
	lang := fs.String("lang", "go", "the reference kernels to run: go, or cpp (wrapgen's C++ kernels, built with $CXX)")
	opTimes := fs.Int("op-times", 0, "with -repeat, print the `n` ops whose kernels took the most time, and the time by kernel")
	if help, err := parseFlags(fs, runUsage, args); help || err != nil {
		return err
	}
	path, err := oneGraph(fs)
	if err != nil {
		return err
	}
	if *repeat < 1 {
		return &usageError{fmt.Sprintf("-repeat %d: want 1 or more", *repeat)}
	}
	if *threads < 1 || *threads > maxRunThreads {
		return &usageError{fmt.Sprintf("-threads %d: want 1 to %d (the most the reference kernels use)", *threads, maxRunThreads)}
	}
	if *lang != "go" && *lang != "cpp" {
		return &usageError{fmt.Sprintf("-lang %q: want go or cpp", *lang)}
	}
	if *opTimes < 0 {
		return &usageError{fmt.Sprintf("-op-times %d: want 0 or more", *opTimes)}
	}
	if err := pf.check(); err != nil {
		return err
	}
	runInputs := append([]string{path, *params}, ins...)
	if *outDir != "" {
		if err := checkOutputDir("-out", *outDir, runInputs...); err != nil {
			return err
		}
	}
	if *cpuProfile != "" {
		if err := checkCPUProfile(*cpuProfile, runInputs...); err != nil {
			return err
		}
	}
	g, weights, err := loadForRun(path, modelOptions(pf.hints, pf.mins, pf.maxes, pf.foldWeights), *params)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    symbolValues
	}{{"-hint", pf.hints}, {"-at", at}} {
		if err := checkSymbolValues(g, f.name, f.v); err != nil {
			return err
		}
	}
	pf.kernels = "ref" // run calls the reference kernels
	pf.packedWeights = *packWeights
	if g, err = pf.forKernels(g); err != nil {
		return err
	}
	p, err := plan.Make(g, pf.options())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	m := interp.New(p)
	defer m.Close()
	if err := m.BindParams(weights); err != nil {
		if len(weights) == 0 && len(g.Params) > 0 {
			if *params != "" {
				return fmt.Errorf("%s: the graph has %d params, and -params %s holds no tensors", path, len(g.Params), *params)
			}
			return fmt.Errorf("%s: the graph has %d params: give them with -params FILE.safetensors", path, len(g.Params))
		}
		return err
	}
	kernel := wgrt.KernelFunc(wgref.Call)
	var srv *cppref.Server
	if *lang == "cpp" {
		srv, err = startCppKernels()
		if err != nil {
			return err
		}
		defer srv.Close()
		n := *threads
		kernel = func(c *wgrt.Call) error {
			c.Threads = n
			return srv.Call(c)
		}
	}
	if *packWeights {
		prepare := wgrt.PrepareFunc(wgref.Prepare)
		if srv != nil {
			prepare = srv.Prepare // wgref::Prepare, as a C++ Runner's Options::prepare
		}
		if err := m.PrepareWeights(prepare); err != nil {
			return err
		}
	}
	if *outDir != "" {
		// Checked before running, so a long run does not end refused.
		for i := range g.Outputs {
			if err := checkOutput("-out", outputFile(*outDir, i), runInputs...); err != nil {
				return err
			}
		}
	}
	syms := map[string]int{}
	for k, v := range at {
		syms[k] = int(v)
	}
	var inputs []wgrt.Tensor
	if len(ins) > 0 {
		if len(ins) != len(g.Inputs) {
			return &usageError{fmt.Sprintf("%s has %d data inputs (%s), got %d -in files", path, len(g.Inputs), inputNames(g), len(ins))}
		}
		if inputs, err = readInputs(g, ins); err != nil {
			return err
		}
	} else if inputs, err = randomInputs(g, at, *seed); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer wgref.SetThreads(wgref.Threads())
	wgref.SetThreads(*threads)
	var outs []wgrt.Tensor
	times := make([]time.Duration, 0, *repeat)
	cpuTimes := make([]time.Duration, 0, *repeat)
	progress := newProgress(stderr, *repeat > 1 && !*quiet)
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile, runInputs...)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stop()) }()
	}
	for i := 0; i < *repeat; i++ {
		if i == 1 && *opTimes > 0 {
			m.TimeOps() // from the second call: the first touches fresh memory
			if srv != nil {
				m.TimeOpsBy(srv.LastKernelTime)
			}
		}
		t0 := time.Now()
		c0, cpuOK := processCPUTime()
		if srv != nil {
			srv.ResetKernelTimes()
		}
		if outs, err = m.Run(kernel, syms, inputs); err != nil {
			progress.done()
			return err
		}
		if srv != nil {
			// The C++ kernels' own times: the tensors' trips to them are
			// not what a C++ wrapper spends.
			wall, cpu := srv.KernelTimes()
			times, cpuTimes = append(times, wall), append(cpuTimes, cpu)
		} else {
			times = append(times, time.Since(t0))
			if c1, ok := processCPUTime(); ok && cpuOK {
				cpuTimes = append(cpuTimes, c1-c0)
			}
		}
		progress.report("wrapgen: running %s: call %d/%d", g.Name, i+1, *repeat)
	}
	progress.done()
	if *outDir != "" {
		var files []outFile
		for i, o := range outs {
			data, err := writeNpy(o)
			if err != nil {
				return fmt.Errorf("output %q: %w", g.Outputs[i].Name, err)
			}
			files = append(files, outFile{outputFile(*outDir, i), data})
		}
		var report io.Writer = stderr
		if *quiet {
			report = nil
		}
		if err := writeFiles(files, report); err != nil {
			return err
		}
	} else {
		for i, o := range outs {
			fmt.Fprintln(stdout, summarize(g.Outputs[i].Name, o))
		}
	}
	if *repeat > 1 {
		env := expr.Env{}
		for k, v := range m.Symbols() {
			env[k] = int64(v)
		}
		fig, err := p.Figures(env)
		if err != nil {
			return err
		}
		wall := sortedDurations(times)
		what := ""
		if srv != nil {
			what = ", the C++ kernels' own time"
		}
		fmt.Fprintf(stdout, "time per call: min %.2f ms, median %.2f ms (%d calls, %d thread%s%s)\n", ms(wall[0]), ms(wall[len(wall)/2]), len(wall), *threads, plural(*threads), what)
		if len(cpuTimes) == len(times) {
			cpu := sortedDurations(cpuTimes)
			fmt.Fprintf(stdout, "process CPU time per call: min %.2f ms, median %.2f ms\n", ms(cpu[0]), ms(cpu[len(cpu)/2]))
		}
		peak, static := m.PeakBytes()
		how := "as planned"
		if peak < static {
			how = fmt.Sprintf("placed at these sizes; as planned %d", static)
		}
		fmt.Fprintf(stdout, "memory: pools' peak %d bytes at %s (%s; lower bound %d); params %d bytes; packed weights %d bytes\n", peak, plan.EnvText(env), how, fig.LoadBytes, fig.ParamBytes, m.PreparedBytes())
		if *opTimes > 0 {
			printOpTimes(stdout, m.OpTimes(), *opTimes, *repeat-1)
		}
	}
	return nil
}

// startCppKernels builds wrapgen's C++ kernels (once per version: the
// build is cached) and starts them.
func startCppKernels() (*cppref.Server, error) {
	opts := cppref.OptionsFromEnv()
	bin, err := cppref.Build(opts)
	if err != nil {
		return nil, err
	}
	return cppref.Start(bin, opts.Exec...)
}

func sortedDurations(ds []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), ds...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// outputFile is where run -out writes output i.
func outputFile(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("output_%d.npy", i))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func inputNames(g *graph.Graph) string {
	var names []string
	for _, x := range g.Inputs {
		names = append(names, quote.Text(x.Name))
	}
	return strings.Join(names, ", ")
}

// loadForRun reads the graph and its params: an ONNX model's own
// initializers (and -params for weights it takes as inputs), or a
// format-v1 graph's -params file.
func loadForRun(path string, opts onnx.Options, paramsFile string) (*graph.Graph, map[string]wgrt.Tensor, error) {
	var file map[string]wgrt.Tensor
	if paramsFile != "" {
		var err error
		if file, err = loadSafetensors("-params", paramsFile); err != nil {
			return nil, nil, err
		}
	}
	data, name := []byte(nil), path
	isModel := onnx.IsModel(path)
	if path == "-" {
		var err error
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, nil, fmt.Errorf("reading standard input: %w", err)
		}
		name, isModel = stdinName, !onnx.IsJSON(data)
	}
	if !isModel {
		var g *graph.Graph
		var err error
		if data != nil {
			g, err = graph.Parse(name, data)
		} else {
			g, err = graph.Load(path)
		}
		return g, file, err
	}
	if file != nil {
		ps, err := readParams(paramsFile)
		if err != nil {
			return nil, nil, err
		}
		opts.Params = ps
	}
	var g *graph.Graph
	var res *onnx.Result
	var err error
	if data != nil {
		g, res, err = onnx.Parse(name, data, opts)
	} else {
		g, res, err = onnx.Load(path, opts)
	}
	if err != nil {
		return nil, nil, err
	}
	weights := map[string]wgrt.Tensor{}
	for _, w := range res.Weights {
		weights[w.Name] = tensorOfWeight(w)
	}
	return g, weights, nil
}

func tensorOfWeight(w onnx.Weight) wgrt.Tensor {
	shape := make([]int, len(w.Shape))
	for i, d := range w.Shape {
		shape[i] = int(d)
	}
	t := wgrt.New(wgrt.DType(emit.DTypeCode(w.DType)), shape...)
	copy(t.Data, w.Data)
	return t
}

// readInputs reads the -in files and binds each to a data input of g: a
// .pb file whose TensorProto has a name to the input of that name, the
// other files (.npy, and .pb without a name) to the inputs no file names,
// in the graph's order. Unknown names and an input named twice are
// refused, so a file never silently feeds another input.
func readInputs(g *graph.Graph, files []string) ([]wgrt.Tensor, error) {
	index := map[string]int{}
	for i, x := range g.Inputs {
		index[x.Name] = i
	}
	inputs := make([]wgrt.Tensor, len(g.Inputs))
	from := make([]string, len(g.Inputs)) // the file bound to each input
	var unnamed []wgrt.Tensor             // bound by position, in order
	var unnamedFiles []string
	for _, file := range files {
		t, name, err := readTensorFile(file)
		if err != nil {
			return nil, err
		}
		if name == "" {
			unnamed, unnamedFiles = append(unnamed, t), append(unnamedFiles, file)
			continue
		}
		i, ok := index[name]
		if !ok {
			return nil, fmt.Errorf("%s: the tensor is named %q, and the graph has no data input of that name (its data inputs: %s)", file, name, inputNames(g))
		}
		if from[i] != "" {
			return nil, fmt.Errorf("%s: input %q is given by %s already", file, name, from[i])
		}
		inputs[i], from[i] = t, file
	}
	next := 0
	for k, t := range unnamed {
		for from[next] != "" {
			next++
		}
		inputs[next], from[next] = t, unnamedFiles[k]
	}
	for i, want := range g.Inputs {
		t := inputs[i]
		if graph.DTypes[t.DType] != want.DType && !(t.DType == wgrt.U16 && want.DType == "bf16") {
			return nil, fmt.Errorf("%s: input %q wants %s, the file holds %s", from[i], want.Name, want.DType, t.DType)
		} else if t.DType == wgrt.U16 && want.DType == "bf16" {
			inputs[i].DType = wgrt.BF16
		}
	}
	return inputs, nil
}

// readTensorFile reads an input from .npy or an ONNX TensorProto (.pb),
// with the TensorProto's name ("" for .npy, which has none).
func readTensorFile(file string) (wgrt.Tensor, string, error) {
	if st, err := os.Stat(file); err == nil && notRegular(st) != "" {
		return wgrt.Tensor{}, "", fmt.Errorf("%s: is %s, not an input file", file, notRegular(st))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return wgrt.Tensor{}, "", err
	}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".npy":
		t, err := readNpy(file, data)
		return t, "", err
	case ".pb":
		w, err := onnx.DecodeTensor(data)
		if err != nil {
			return wgrt.Tensor{}, "", fmt.Errorf("%s: %w", file, err)
		}
		return tensorOfWeight(w), w.Name, nil
	}
	return wgrt.Tensor{}, "", fmt.Errorf("%s: an input file is .npy or .pb (an ONNX TensorProto)", file)
}

// randomInputs makes every data input at the symbol values (-at, else the
// hints): floats uniform in [-1, 1), integers in [0, 10), bools at random.
func randomInputs(g *graph.Graph, at symbolValues, seed int64) ([]wgrt.Tensor, error) {
	env := g.Hints()
	for k, v := range at {
		env[k] = v
	}
	r := rand.New(rand.NewSource(seed))
	var out []wgrt.Tensor
	for _, x := range g.Inputs {
		shape := make([]int, len(x.Shape))
		for i, s := range x.Shape {
			v, err := s.Eval(env)
			if err != nil {
				return nil, fmt.Errorf("input %q: %w", x.Name, err)
			}
			shape[i] = int(v)
		}
		t := wgrt.New(wgrt.DType(emit.DTypeCode(x.DType)), shape...)
		fillRandom(r, t)
		t.Device = x.Device
		out = append(out, t)
	}
	return out, nil
}

func fillRandom(r *rand.Rand, t wgrt.Tensor) {
	n := t.NumElements()
	size := t.DType.Size()
	for i := 0; i < n; i++ {
		b := t.Data[i*size : i*size+size]
		switch t.DType {
		case wgrt.F32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(r.Float32()*2-1))
		case wgrt.F64:
			binary.LittleEndian.PutUint64(b, math.Float64bits(r.Float64()*2-1))
		case wgrt.F16, wgrt.BF16:
			// 0x3c00 is 1.0 in f16; in bf16 small values near 1; both valid
			// numbers with a random low mantissa.
			binary.LittleEndian.PutUint16(b, 0x3c00|uint16(r.Intn(0x100)))
		case wgrt.Bool:
			b[0] = byte(r.Intn(2))
		default:
			v := uint64(r.Intn(10))
			for k := range b {
				b[k] = byte(v >> (8 * k))
			}
		}
	}
}

// summarize is one line per output: name, dtype, shape, the first values,
// and for floats the minimum, maximum and mean.
func summarize(name string, t wgrt.Tensor) string {
	var vals []string
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	n := 0
	isFloat := t.DType == wgrt.F32 || t.DType == wgrt.F64 || t.DType == wgrt.F16 || t.DType == wgrt.BF16
	wgrt.EachElement(t, func(off int) {
		v := t.Float64At(off)
		if n < 8 {
			vals = append(vals, fmt.Sprintf("%.6g", v))
		}
		lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
		n++
	})
	if n > 8 {
		vals = append(vals, "...")
	}
	s := fmt.Sprintf("%s: %s %v [%s]", quote.Text(name), t.DType, t.Shape, strings.Join(vals, " "))
	if isFloat && n > 0 {
		s += fmt.Sprintf(" min %.6g max %.6g mean %.6g", lo, hi, sum/float64(n))
	}
	return s
}
