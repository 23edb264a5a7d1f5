package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/golang"
)

const selftestUsage = `wrapgen selftest -lang go|cpp [-at name=value] [-fault overlap] [flags] GRAPH.json

Generates the wrapper with sentinel kernels into a temporary directory,
builds it and runs it: every kernel fills its outputs with a pattern unique
to the write and checks that its inputs still hold what was written. Fails,
naming the first corrupted tensor and op, if any check fails. -fault overlap
places two live storages on the same bytes first (a negative control: the
selftest must then fail).`

func runSelftest(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("selftest", stderr)
	var pf planFlags
	pf.register(fs)
	lang := fs.String("lang", "go", "language of the wrapper: go or cpp")
	at := symbolValues{}
	fs.Var(at, "at", "run at symbol `name=value` (the plan is made at the hints; repeatable)")
	fault := fs.String("fault", "", "inject a fault before generating: overlap")
	keep := fs.String("keep", "", "build in `dir` and keep it, instead of a temporary directory")
	if help, err := parseFlags(fs, selftestUsage, args); help || err != nil {
		return err
	}
	path, err := oneGraph(fs)
	if err != nil {
		return err
	}
	if *fault != "" && *fault != "overlap" {
		return &usageError{fmt.Sprintf("-fault %q: the only fault is overlap", *fault)}
	}
	p, err := pf.loadAndPlan(path)
	if err != nil {
		return err
	}
	env := expr.Env{}
	for k, v := range p.Hints {
		env[k] = v
	}
	for name, v := range at {
		s := p.Graph.Symbol(name)
		if s == nil {
			return &usageError{fmt.Sprintf("-at %s: graph %s has no symbol %q", name, p.Graph.Name, name)}
		}
		if v < s.Min || (s.HasMax && v > s.Max) {
			return &usageError{fmt.Sprintf("-at %s=%d is outside the symbol's range", name, v)}
		}
		env[name] = v
	}
	if *fault == "overlap" {
		what, err := plan.InjectOverlap(p, env)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "selftest: "+what)
	}
	dir := *keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "wrapgen-selftest-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	switch *lang {
	case "go":
		return selftestGo(p, env, dir, stdout, stderr)
	case "cpp", "c++":
		return selftestCpp(p, env, dir, stdout, stderr)
	}
	return &usageError{fmt.Sprintf("-lang %q: want go or cpp", *lang)}
}

func selftestGo(p *plan.Plan, env expr.Env, dir string, stdout, stderr io.Writer) error {
	files, err := golang.SelftestFiles(p, env)
	if err != nil {
		return err
	}
	if err := writeUnder(dir, files); err != nil {
		return err
	}
	bin := filepath.Join(dir, "selftest.bin")
	if err := toolCommand(dir, stderr, "go", "build", "-o", bin, ".").Run(); err != nil {
		return fmt.Errorf("selftest: building the generated Go for %s failed: %w", p.Graph.Name, err)
	}
	return runSelftestBinary(bin, dir, p.Graph.Name, stdout, stderr)
}

func writeUnder(dir string, files []golang.File) error {
	var out []outFile
	for _, f := range files {
		out = append(out, outFile{filepath.Join(dir, filepath.FromSlash(f.Path)), f.Content})
	}
	return writeFiles(out)
}

// toolCommand runs name in dir with Go's environment pinned to this machine:
// no workspace, no toolchain download.
func toolCommand(dir string, stderr io.Writer, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=")
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	return cmd
}

func runSelftestBinary(bin, dir, name string, stdout, stderr io.Writer) error {
	var out bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil {
		return fmt.Errorf("selftest of %s failed: %s", name, text)
	}
	fmt.Fprintln(stdout, text)
	return nil
}
