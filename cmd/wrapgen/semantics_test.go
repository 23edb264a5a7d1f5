package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/synth"
	"github.com/wrapgen/wrapgen/internal/testenv"
)

// semanticsGraphs are hand-made graphs of rare semantics that once made
// selftest fail on valid graphs, each run at the symbol values that broke:
//   - empty_tensors: sizes of 0 (min: 0 symbols, constant 0 sizes, strided
//     storages whose 1+sum((size-1)*stride) goes negative at 0, a view at an
//     offset past an empty base, a loop run 0 times, outputs that are views);
//   - read_before_write: memory read before the call writes it (an output
//     written in two halves and read between, a base read between writes of
//     its even and odd elements), which the sentinel took, from the previous
//     call's writes, for corruption;
//   - loop_read_before_write: the same inside a loop, where a view of a
//     base is read before the base is mutated later in the body and the
//     loop is the base's last use;
//   - devices: tensors on devices other than "cpu", which the selftest had
//     no allocator for.
var semanticsGraphs = []struct {
	file string
	at   [][]string
}{
	{"empty_tensors.json", [][]string{nil, {"n=0", "m=0"}, {"n=0", "m=2"}, {"n=3", "m=0"}, {"n=1", "m=1"}, {"n=16", "m=8"}}},
	{"read_before_write.json", [][]string{nil, {"n=1"}}},
	{"loop_read_before_write.json", [][]string{nil, {"n=1"}}},
	{"devices.json", [][]string{nil, {"n=1"}}},
}

func TestSelftestSemantics(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds and runs generated code")
	langs := []string{"go"}
	if len(cxxCompilers()) > 0 {
		langs = append(langs, "cpp")
	}
	for _, g := range semanticsGraphs {
		for _, lang := range langs {
			g, lang := g, lang
			t.Run(g.file+"/"+lang, func(t *testing.T) {
				t.Parallel()
				for _, at := range g.at {
					args := append([]string{"selftest", "-lang", lang}, oneCompiler()...)
					for _, a := range at {
						args = append(args, "-at", a)
					}
					out, stderr, err := runCLI(append(args, filepath.Join("testdata", "semantics", g.file))...)
					require.NoError(t, err, "at %v: %s", at, stderr)
					assert.Contains(t, out, "selftest: ok", "at %v", at)
				}
			})
		}
	}
}

// Random graphs (views, in-place chains, mutates, nested loops, two
// devices, symbols with min 0) pass selftest at the hints and at m=0, n=1:
// Go for a few seeds, C++ for one (its builds are slower).
func TestSelftestRandomGraphs(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds and runs generated code")
	dir := t.TempDir()
	for seed := uint64(0); seed < 6; seed++ {
		langs := []string{"go"}
		if seed == 0 && len(cxxCompilers()) > 0 {
			langs = append(langs, "cpp")
		}
		path := filepath.Join(dir, fmt.Sprintf("random%d.json", seed))
		// The graph is renamed: C++ namespace "random" collides with the C
		// library's random() (the emission rework owns that class).
		data := bytes.Replace(synth.Random(seed), []byte(`"name": "random"`), []byte(`"name": "rgraph"`), 1)
		require.True(t, bytes.Contains(data, []byte(`"name": "rgraph"`)), "renamed")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		for _, lang := range langs {
			seed, lang := seed, lang
			t.Run(fmt.Sprintf("seed%d/%s", seed, lang), func(t *testing.T) {
				t.Parallel()
				for _, at := range [][]string{nil, {"-at", "m=0", "-at", "n=1"}} {
					args := append(append(append([]string{"selftest", "-lang", lang}, oneCompiler()...), at...), path)
					out, stderr, err := runCLI(args...)
					require.NoError(t, err, "%v: %s", at, stderr)
					assert.Contains(t, out, "selftest: ok")
				}
			})
		}
	}
}

// oneCompiler is -cxx with the first C++ compiler found: these graphs test
// what the wrapper does, which one compiler shows (a sanitizer build is
// 15-40 s of CPU); the hostile graphs, which test what compiles, use every
// compiler.
func oneCompiler() []string {
	if cs := cxxCompilers(); len(cs) > 0 {
		return []string{"-cxx", cs[0]}
	}
	return nil
}
