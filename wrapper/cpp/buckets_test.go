package cpp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/graph"
	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/graph/synth"
	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// bucketed is a random graph (two symbols, loops, a second device) whose
// plan has size buckets, planned as wrapgen gen does: the whole range's
// plan holding the buckets' plans. It is the first random graph
// plan.MakeBuckets splits; when none splits, the first graph cut by hand
// into two buckets along its first symbol (what MakeBuckets would do, with
// every bucket's in-place pairs weighed at the same values).
func bucketed(t *testing.T) (*plan.Plan, []*plan.Bucket) {
	t.Helper()
	parse := func(seed uint64) *graph.Graph {
		g, err := graph.Parse("random.json", synth.Random(seed))
		require.NoError(t, err)
		g.Name = "bucketed" // "random" is a C library function: no C++ namespace
		return g
	}
	whole := func(g *graph.Graph, bs []*plan.Bucket) *plan.Plan {
		top, err := plan.Make(g, plan.Options{})
		require.NoError(t, err)
		top.Buckets = bs
		return top
	}
	for seed := uint64(0); seed < 32; seed++ {
		g := parse(seed)
		bs, err := plan.MakeBuckets(g, plan.Options{}, 1.0, 4)
		require.NoError(t, err, "seed %d", seed)
		if len(bs) > 1 {
			return whole(g, bs), bs
		}
	}
	// By hand: the first cut of seed 0's symbols into two buckets whose
	// plans differ (the lower planned at its smallest values, the upper
	// at its largest).
	g := parse(0)
	for k, s := range g.Symbols {
		if s.RunTime() || !s.HasMax {
			continue
		}
		for _, cut := range []int64{s.Min + 1, s.Min + 4} {
			var bs []*plan.Bucket
			for part := 0; part < 2; part++ {
				rg := *g
				rg.Symbols = nil
				var rs []plan.SymbolRange
				hints := expr.Env{}
				for j, x := range g.Symbols {
					c := *x
					if j == k && part == 0 {
						c.Max, c.Hint = cut, c.Min
					} else if j == k {
						c.Min, c.Hint = cut+1, c.Max
					}
					c.Hint = min(max(c.Hint, c.Min), c.Max)
					rg.Symbols = append(rg.Symbols, &c)
					if !c.RunTime() {
						rs = append(rs, plan.SymbolRange{Name: c.Name, Min: c.Min, Max: c.Max, HasMax: c.HasMax})
						hints[c.Name] = c.Hint
					}
				}
				p, err := plan.Make(&rg, plan.Options{Hints: hints, AliasHints: g.Hints()})
				require.NoError(t, err, "bucket %s", plan.RangesText(rs))
				bs = append(bs, &plan.Bucket{Ranges: rs, Plan: p})
			}
			if poolsText(bs[0].Plan) != poolsText(bs[1].Plan) {
				t.Logf("no random graph splits into buckets: two made by hand, %s and %s", plan.RangesText(bs[0].Ranges), plan.RangesText(bs[1].Ranges))
				return whole(g, bs), bs
			}
		}
	}
	t.Fatal("no random graph splits into buckets, and no cut by hand gives two plans that differ")
	return nil, nil
}

// poolsText is the sizes of p's pools.
func poolsText(p *plan.Plan) string {
	var sizes []string
	for _, pool := range p.Pools {
		sizes = append(sizes, pool.Size.String())
	}
	return strings.Join(sizes, "; ")
}

func file(t *testing.T, files []emit.File, path string) string {
	t.Helper()
	for _, f := range files {
		if f.Path == path {
			return string(f.Content)
		}
	}
	t.Fatalf("no %s generated", path)
	return ""
}

// A plan without buckets is one plan of every value, under the names its
// arrays had before buckets; with buckets, each plan's arrays are numbered
// and carry its ranges, in the buckets' order, and the output is the same
// on every run.
func TestGeneratePlans(t *testing.T) {
	g, err := graph.Load("../../examples/mlp/mlp.json")
	require.NoError(t, err)
	p, err := plan.Make(g, plan.Options{})
	require.NoError(t, err)
	files, err := cpp.Generate(p, cpp.Options{})
	require.NoError(t, err)
	cc := file(t, files, "mlp.cc")
	assert.Contains(t, cc, fmt.Sprintf("static_assert(wrapgen::kTableVersion == %d,", emit.TableVersion))
	assert.Contains(t, cc, "const int32_t kSteps[] = {")
	assert.Contains(t, cc, "const char* const kPoolDevices[] = {\"cpu\", \"cpu\", nullptr};")
	assert.Contains(t, cc, "const wrapgen::Plan kPlans[] = {\n    {nullptr, 0,\n     kSteps,")
	assert.Contains(t, cc, "rt_.OutputOwner(0)")
	assert.NotContains(t, cc, "k_steps0")
	assert.NotContains(t, cc, "size bucket")

	top, bs := bucketed(t)
	files, err = cpp.Generate(top, cpp.Options{})
	require.NoError(t, err)
	again, err := cpp.Generate(top, cpp.Options{})
	require.NoError(t, err)
	assert.Equal(t, files, again, "generated twice from one plan")
	cc, h := file(t, files, "bucketed.cc"), file(t, files, "bucketed.h")
	first, _, _ := strings.Cut(cc, "\n#include")
	assert.Contains(t, first, fmt.Sprintf(", %d size buckets (one plan each, picked by the symbols).", len(bs)))
	assert.Contains(t, h, "It keeps one size bucket's pools")
	at := 0
	for i, b := range bs {
		var triples []string
		for _, r := range b.Ranges {
			hi := r.Max
			if !r.HasMax {
				hi = -1
			}
			triples = append(triples, fmt.Sprintf("%d, %d, %d,", symbolIndex(top.Graph, r.Name), r.Min, hi))
		}
		decl := fmt.Sprintf("const int64_t k_ranges%d[] = {%s 0};", i, strings.Join(triples, " "))
		j := strings.Index(cc, decl)
		require.GreaterOrEqual(t, j, 0, "plan %d: no %s", i, decl)
		assert.Greater(t, j, at, "plan %d after plan %d", i, i-1)
		at = j
		for _, name := range []string{"k_steps", "k_pool_devices", "k_output_pools", "k_output_owners"} {
			assert.Contains(t, cc, fmt.Sprintf("const %s%d[] = {", name, i)[len("const "):])
		}
		assert.Contains(t, cc, fmt.Sprintf("    {k_ranges%d, static_cast<int>(sizeof(k_ranges%d)", i, i))
	}
	assert.NotContains(t, cc, "kSteps")
}

func symbolIndex(g *graph.Graph, name string) int {
	for i, s := range g.Symbols {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// cxxCompilers are $CXX, or g++ and clang++ where installed.
func cxxCompilers() []string {
	if cxx := os.Getenv("CXX"); cxx != "" {
		return []string{cxx}
	}
	var found []string
	for _, c := range []string{"g++", "clang++"} {
		if path, err := exec.LookPath(c); err == nil {
			found = append(found, path)
		}
	}
	return found
}

// The sentinel selftest of a wrapper with size buckets, built as strictly
// as wrapgen selftest builds it, runs clean at points of every bucket: its
// hint, and the corners of its ranges.
func TestSelftestBuckets(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles C++")
	compilers := cxxCompilers()
	if len(compilers) == 0 {
		t.Skip("no C++ compiler (g++ or clang++) installed: the bucketed selftest is not built")
	}
	top, bs := bucketed(t)
	files, err := cpp.SelftestFiles(top, nil)
	require.NoError(t, err)
	dir := t.TempDir()
	var sources []string
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f.Path), f.Content, 0o644))
		if strings.HasSuffix(f.Path, ".cc") {
			sources = append(sources, f.Path)
		}
	}
	var points []expr.Env
	for _, b := range bs {
		lo, hi, hint := expr.Env{}, expr.Env{}, expr.Env{}
		for _, r := range b.Ranges {
			lo[r.Name], hi[r.Name], hint[r.Name] = r.Min, r.Min+3, b.Plan.Hints[r.Name]
			if r.HasMax {
				hi[r.Name] = r.Max
			}
		}
		require.Equal(t, b, bs[plan.PickBucket(bs, hint)], "the hint of bucket %s is in it", plan.RangesText(b.Ranges))
		points = append(points, lo, hi, hint)
	}
	flags := []string{"-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror",
		"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}
	for _, cxx := range compilers {
		t.Run(filepath.Base(cxx), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "selftest")
			// The sources compile in parallel: sanitizer builds are slow.
			var wg sync.WaitGroup
			logs := make([][]byte, len(sources))
			errs := make([]error, len(sources))
			for i, src := range sources {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(cxx, append(append([]string{}, flags...), "-c", src, "-o", out+fmt.Sprint(i)+".o")...)
					cmd.Dir = dir
					logs[i], errs[i] = cmd.CombinedOutput()
				}()
			}
			wg.Wait()
			objects := []string{}
			for i := range sources {
				require.NoError(t, errs[i], "%s %s:\n%s", cxx, sources[i], logs[i])
				assert.Empty(t, strings.TrimSpace(string(logs[i])), "%s: no warnings", sources[i])
				objects = append(objects, out+fmt.Sprint(i)+".o")
			}
			link, err := exec.Command(cxx, append(append(append([]string{}, flags...), "-o", out), objects...)...).CombinedOutput()
			require.NoError(t, err, "link:\n%s", link)
			for _, env := range points {
				var args []string
				for _, s := range top.Graph.Symbols {
					args = append(args, fmt.Sprintf("%s=%d", s.Name, env[s.Name]))
				}
				cmd := exec.Command(out, args...)
				cmd.Env = append(os.Environ(), "ASAN_OPTIONS=detect_leaks=0")
				got, err := cmd.CombinedOutput()
				require.NoError(t, err, "at %s:\n%s", plan.EnvText(env), got)
				assert.Contains(t, string(got), "selftest: ok: graph bucketed at "+strings.Join(args, ", ")+":", "at %s", plan.EnvText(env))
			}
		})
	}
}
