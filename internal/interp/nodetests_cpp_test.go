package interp

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/cppref"
	"github.com/wrapgen/wrapgen/internal/testenv"
)

// TestNodeTestsCpp runs the node tests through the C++ reference kernels
// (templates/wgref, built once by package cppref) as TestNodeTests runs
// them through the Go ones: the same import, plan and tables, each kernel
// call answered by the C++ build, each output compared with the test's.
// WRAPGEN_NODE_RUN picks tests as there; WRAPGEN_CPP_NODE_REPORT=file
// writes every test's result. Long: it builds the kernels.
func TestNodeTestsCpp(t *testing.T) {
	testenv.SkipUnlessLong(t, "it builds the C++ kernels")
	dirs := nodeTestDirs(t)
	srv := startCppKernels(t)
	imported, matched := 0, 0
	var results []nodeResult
	for _, dir := range dirs {
		r := runNodeTest(dir, srv.Call, false)
		results = append(results, r)
		if r.imported {
			imported++
			if r.err == "" {
				matched++
			}
		}
	}
	t.Logf("node tests through the C++ kernels: %d, imported %d, matched %d", len(dirs), imported, matched)
	for _, r := range results {
		if !r.imported || r.err == "" {
			continue
		}
		if cause, known := knownNodeFailures[r.name]; known {
			t.Logf("%s: fails as known: %s", r.name, cause)
			continue
		}
		t.Errorf("%s (kernel %s): %s", r.name, r.op, r.err)
	}
	if os.Getenv("WRAPGEN_NODE_RUN") == "" {
		assert.GreaterOrEqual(t, matched, 871, "the C++ kernels match as many node tests as the Go ones")
	}
	if out := os.Getenv("WRAPGEN_CPP_NODE_REPORT"); out != "" {
		var b strings.Builder
		sort.Slice(results, func(i, j int) bool { return results[i].name < results[j].name })
		for _, r := range results {
			switch {
			case !r.imported:
			case r.err != "":
				fmt.Fprintf(&b, "%s\t%s\tFAIL\t%s\n", r.name, r.op, oneLine(r.err))
			default:
				fmt.Fprintf(&b, "%s\t%s\tok\n", r.name, r.op)
			}
		}
		require.NoError(t, os.WriteFile(out, []byte(b.String()), 0o644))
	}
}

// startCppKernels builds (once per source state) and starts the C++
// kernels' server, with the options of cppref.OptionsFromEnv (a compiler,
// sanitizer flags, an emulator to run an arm64 build), failing every call
// whose kernel allocates when called again.
func startCppKernels(t *testing.T) *cppref.Server {
	t.Helper()
	// Each kernel call runs twice in the server, the second time counting
	// operator new: a steady call allocates nothing.
	t.Setenv("WGREF_SERVE_COUNT_ALLOCS", "1")
	opts := cppref.OptionsFromEnv()
	bin, err := cppref.Build(opts)
	if err != nil && strings.Contains(err.Error(), "no C++ compiler") {
		t.Skip(err)
	}
	require.NoError(t, err)
	srv, err := cppref.Start(bin, opts.Exec...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}
