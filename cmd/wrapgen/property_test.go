package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/internal/ident"
	"github.com/wrapgen/wrapgen/internal/synth"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
)

// hostileNames are what a hostile graph calls its kernels, tensors,
// devices, attributes and itself: quoting breakers, keywords of both
// languages, the generator's own identifiers, long and Unicode names.
var hostileNames = []string{
	`"q`, `back\`, "nl\nx", "tab\tcr\r", "*/", "/*", "??=", "a??/", "%s%d%w", "%", "nul\x00x", "\x7f", "é名前", "\u202ertl",
	"int", "func", "range", "class", "template", "new", "delete", "and", "std", "NULL",
	"opTable", "attrInts0", "kAttrInts0", "own0", "iter10", "iter0", "loop_iter0", "const_ints0", "k_attr_ints0", "own_pool0",
	"BeginOp", "begin_op", "Kernels", "kernels", "frame", "bound", "obs", "err", "pools", "f", "k", "in", "out", "s", "ins", "out0", "in0",
	strings.Repeat("long", 80),
}

// hostileSymbols are identifiers (all a symbol may be) that equal names the
// generator uses or that are keywords.
var hostileSymbols = []string{"opTable", "attrInts0", "kAttrInts0", "own0", "iter10", "iter0", "loop_iter0", "const_ints0",
	"range", "bound", "obs", "s", "sym", "pool", "f", "k", "in", "out", "len", "template", "poolDevices", "frame"}

func isIdent(s string) bool { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(s) }

// hostileGraph is synth.Random(seed) with every name replaced by a hostile
// one (consistently: one kernel keeps one name and one set of attribute
// names) and the attributes set to extreme values.
func hostileGraph(t *testing.T, seed uint64) []byte {
	var g map[string]any
	require.NoError(t, json.Unmarshal(synth.Random(seed), &g))
	rng := rand.New(rand.NewPCG(seed, 77))
	used := map[string]bool{}
	fresh := func() string {
		n := hostileNames[rng.IntN(len(hostileNames))]
		// Names without a letter or digit are refused; keep one draw in
		// eight that way and give the others a letter, so most graphs
		// reach the compilers with the hostile bytes still in them.
		if _, ok := ident.Camel(n); !ok && rng.IntN(8) != 0 {
			n = "q" + n
		}
		// Keep a name that is already an identifier as it is (once), to
		// meet the generator's own names exactly; tag the others so that
		// they stay distinct after mangling.
		id, _ := ident.Camel(n)
		if used[n] || used[strings.ToLower(id)] || !isIdent(n) {
			n = fmt.Sprintf("%s·t%d", n, len(used))
		}
		used[n] = true
		if id, ok := ident.Camel(n); ok {
			used[strings.ToLower(id)] = true
		}
		return n
	}
	renamed := map[string]string{}
	tensor := func(name string) string {
		if _, ok := renamed[name]; !ok {
			renamed[name] = fresh()
		}
		return renamed[name]
	}
	syms := map[string]string{}
	perm := rng.Perm(len(hostileSymbols))
	syms["n"], syms["m"] = hostileSymbols[perm[0]], hostileSymbols[perm[1]]
	for _, sym := range syms {
		id, _ := ident.Camel(sym)
		used[sym], used[strings.ToLower(id)] = true, true
	}
	word := regexp.MustCompile(`\b[nm]\b`)
	exprOf := func(v any) any {
		if s, ok := v.(string); ok {
			return word.ReplaceAllStringFunc(s, func(w string) string { return syms[w] })
		}
		return v
	}
	exprs := func(v any) any {
		list, ok := v.([]any)
		if !ok {
			return exprOf(v)
		}
		for i := range list {
			list[i] = exprOf(list[i])
		}
		return list
	}
	symbols := map[string]any{}
	for old, s := range g["symbols"].(map[string]any) {
		symbols[syms[old]] = s
	}
	g["symbols"] = symbols
	devices := map[string]string{"cpu": "cpu", "cuda:0": fresh()}
	tensors := map[string]any{}
	for name, v := range g["tensors"].(map[string]any) {
		td := v.(map[string]any)
		for _, k := range []string{"shape", "strides", "offset"} {
			if x, ok := td[k]; ok {
				td[k] = exprs(x)
			}
		}
		if d, ok := td["device"].(string); ok {
			td["device"] = devices[d]
		}
		if b, ok := td["view_of"].(string); ok {
			td["view_of"] = tensor(b)
		}
		tensors[tensor(name)] = td
	}
	g["tensors"] = tensors
	names := func(v any) any {
		list, _ := v.([]any)
		for i := range list {
			list[i] = tensor(list[i].(string))
		}
		return list
	}
	g["inputs"], g["outputs"] = names(g["inputs"]), names(g["outputs"])
	kernels, attrNames := map[string]string{}, map[string]string{}
	extremeInts := []int64{math.MinInt64, math.MaxInt64, 0, -1}
	extremeFloats := []float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 0, 1}
	var ops func(list []any)
	ops = func(list []any) {
		for _, o := range list {
			op := o.(map[string]any)
			if loop, ok := op["loop"].(map[string]any); ok {
				loop["count"] = exprOf(loop["count"])
				ops(loop["body"].([]any))
				continue
			}
			k := op["kernel"].(string)
			if _, ok := kernels[k]; !ok {
				kernels[k] = fresh()
			}
			op["kernel"] = kernels[k]
			for _, f := range []string{"inputs", "outputs", "mutates"} {
				if v, ok := op[f]; ok {
					op[f] = names(v)
				}
			}
			if ip, ok := op["inplace"].(map[string]any); ok {
				m := map[string]any{}
				for out, in := range ip {
					m[tensor(out)] = tensor(in.(string))
				}
				op["inplace"] = m
			}
			if attrs, ok := op["attrs"].(map[string]any); ok {
				m := map[string]any{}
				for name, v := range attrs {
					if _, ok := attrNames[name]; !ok {
						attrNames[name] = fresh()
					}
					switch x := v.(type) {
					case float64:
						if x == math.Trunc(x) {
							v = extremeInts[rng.IntN(len(extremeInts))]
						} else {
							v = extremeFloats[rng.IntN(len(extremeFloats))]
						}
					case string:
						v = fresh()
					case []any:
						for i, e := range x {
							if _, isNum := e.(float64); isNum {
								x[i] = extremeInts[rng.IntN(len(extremeInts))]
							} else if em, isExpr := e.(map[string]any); isExpr {
								em["expr"] = exprOf(em["expr"])
							}
						}
					case map[string]any:
						x["expr"] = exprOf(x["expr"])
					}
					m[attrNames[name]] = v
				}
				op["attrs"] = m
			}
		}
	}
	ops(g["ops"].([]any))
	g["name"] = fresh() + "·" + strconv.FormatUint(seed, 10)
	data, err := json.Marshal(g)
	require.NoError(t, err)
	return data
}

// TestHostileGraphsCompile generates random graphs with hostile names and
// extreme attributes in both languages: each must be refused with a
// positioned message, or compile warning-free (go vet; g++ and clang++
// -Wall -Wextra -Wshadow -Wconversion -Werror). WRAPGEN_PROPERTY_GRAPHS
// sets how many (CI runs the default, a long run by hand uses hundreds).
func TestHostileGraphsCompile(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds generated code")
	t.Parallel() // builds and runs other programs: overlaps with the other long tests
	count := 8
	if s := os.Getenv("WRAPGEN_PROPERTY_GRAPHS"); s != "" {
		var err error
		count, err = strconv.Atoi(s)
		require.NoError(t, err, "WRAPGEN_PROPERTY_GRAPHS")
	}
	dir := tempModule(t)
	var ccFiles []string
	var runtimeSources []string // the same file in every directory
	accepted, refused := 0, 0
	for seed := uint64(1); seed <= uint64(count); seed++ {
		src := hostileGraph(t, seed)
		path := filepath.Join(dir, fmt.Sprintf("g%d.json", seed))
		require.NoError(t, os.WriteFile(path, src, 0o644))
		pkg := fmt.Sprintf("g%d", seed)
		_, _, goErr := runCLI("gen", "-lang", "go", "-runtime", filepath.Join(dir, "wgrt"), "-o", filepath.Join(dir, pkg, pkg+".go"), path)
		cppDir := filepath.Join(dir, "cpp", pkg)
		_, _, cppErr := runCLI("gen", "-lang", "cpp", "-o", cppDir, path)
		if goErr != nil || cppErr != nil {
			// Refused: the message must name the file and a place, never
			// be a crash or a compile error of wrapgen's own making.
			for _, err := range []error{goErr, cppErr} {
				if err != nil {
					var list graph.ErrorList
					assert.ErrorAs(t, err, &list, "seed %d: %v", seed, err)
					assert.Contains(t, err.Error(), path, "seed %d", seed)
				}
			}
			refused++
			t.Logf("seed %d refused: go: %v; C++: %v", seed, goErr, cppErr)
			continue
		}
		accepted++
		cc, err := filepath.Glob(filepath.Join(cppDir, "*.cc"))
		require.NoError(t, err)
		for _, f := range cc {
			if filepath.Base(f) == cpp.RuntimeSource {
				runtimeSources = append(runtimeSources, f)
			} else {
				ccFiles = append(ccFiles, f)
			}
		}
	}
	t.Logf("%d hostile graphs: %d generated in both languages, %d refused at validation", count, accepted, refused)
	require.NotZero(t, accepted, "no hostile graph was accepted: the test checks nothing")
	require.Len(t, runtimeSources, accepted, "gen -lang cpp writes %s beside every wrapper", cpp.RuntimeSource)
	ccFiles = append(ccFiles, runtimeSources[0])
	goVet(t, dir)
	for _, cxx := range []string{"g++", "clang++"} {
		if _, err := exec.LookPath(cxx); err != nil {
			t.Logf("%s not installed: C++ not checked with it", cxx)
			continue
		}
		args := append([]string{"-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror"}, ccFiles...)
		out, err := exec.Command(cxx, args...).CombinedOutput()
		require.NoError(t, err, "%s: %s", cxx, out)
	}
}
