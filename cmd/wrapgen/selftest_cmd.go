package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
	"github.com/wrapgen/wrapgen/wrapper/emit"
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
	fs := newFlagSet("selftest", stdout, stderr)
	var pf planFlags
	pf.register(fs)
	lang := fs.String("lang", "go", "language of the wrapper: go or cpp")
	at := symbolValues{}
	fs.Var(at, "at", "run at symbol `name=value` (the plan is made at the hints; repeatable)")
	fault := fs.String("fault", "", "inject a fault before generating: overlap, or alias (an output placed on an input the kernel may not alias)")
	keep := fs.String("keep", "", "build in `dir` and keep it, instead of a temporary directory (a new or empty folder, or one a selftest used: selftest replaces no file of yours)")
	runIt := fs.Bool("run", true, "run what was built (-run=false: generate, build and vet only, e.g. to time the build)")
	cxx := fs.String("cxx", "", "with -lang cpp: the C++ compiler to build with (default: $CXX, else both g++ and clang++ where installed)")
	pf.registerHorizon(fs)
	pf.registerKernels(fs, "`ref`: check the plan made for wrapgen's reference kernels, with their scratch memory (each call scribbles over its scratch)")
	if help, err := parseFlags(fs, selftestUsage, args); help || err != nil {
		return err
	}
	path, err := oneGraph(fs)
	if err != nil {
		return err
	}
	selftest, ok := selftests[*lang]
	if !ok {
		return &usageError{fmt.Sprintf("-lang %q: want go or cpp", *lang)}
	}
	inject := map[string]func(*plan.Plan, expr.Env) (string, error){"overlap": injectOverlap, "alias": injectAlias}
	if *fault != "" && inject[*fault] == nil {
		return &usageError{fmt.Sprintf("-fault %q: the faults are overlap and alias", *fault)}
	}
	p, err := pf.loadAndPlan(path)
	if err != nil {
		return err
	}
	if err := checkSymbolValues(p.Graph, "-at", at); err != nil {
		return err
	}
	points := selftestPoints(p, at)
	if *fault != "" {
		what, err := inject[*fault](p, points[0])
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "selftest: "+what)
	}
	dir := *keep
	if dir != "" {
		// Absolute: the builds run in dir and name files in it.
		if dir, err = filepath.Abs(dir); err != nil {
			return err
		}
		if err := checkKeepDir(*keep, dir, path); err != nil {
			return err
		}
	} else {
		if dir, err = os.MkdirTemp("", "wrapgen-selftest-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	for _, env := range points {
		compilers := cxxCompilers()
		if *cxx != "" {
			compilers = []string{*cxx}
		}
		if err := selftest(p, env, dir, compilers, *runIt, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// checkKeepDir refuses a -keep folder (flag is how the user spelt it, dir
// its absolute path) that holds files selftest did not write: it writes a
// whole module there (go.mod, main.go, ...), and a project's own files are
// neither replaced nor built with it. A new or empty folder, or one a
// selftest used before, is taken.
func checkKeepDir(flag, dir, graphPath string) error {
	if err := checkOutputDir("-keep", dir, graphPath); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if head, ok := fileHead(path); ok && isGenerated(head) || isSelftestBuild(dir, path) {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		return fmt.Errorf("-keep %s: holds %s, which selftest did not write; selftest writes a whole module there (go.mod, main.go, the wrapper, ...) and replaces no file of yours: give it a new or empty folder", flag, rel)
	})
}

// isSelftestBuild reports whether path in a -keep folder dir is what a
// selftest's build leaves there: the Go binary, a C++ one, their objects.
func isSelftestBuild(dir, path string) bool {
	if filepath.Dir(path) != dir {
		return false
	}
	base := filepath.Base(path)
	return base == "selftest.bin" || strings.HasPrefix(base, "selftest-") || strings.HasSuffix(base, ".o")
}

// selftestPoints are the symbol values a selftest runs at: the -at values
// (the hints for symbols they lack).
func selftestPoints(p *plan.Plan, at symbolValues) []expr.Env {
	return []expr.Env{p.WithHints(expr.Env(at))}
}

// selftests are the backends selftest builds, by -lang value (as gen's
// backends).
var selftests = map[string]func(p *plan.Plan, env expr.Env, dir string, compilers []string, runIt bool, stdout, stderr io.Writer) error{
	"go": selftestGo, "cpp": selftestCpp, "c++": selftestCpp,
}

func selftestGo(p *plan.Plan, env expr.Env, dir string, _ []string, runIt bool, stdout, stderr io.Writer) error {
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
	// Generated code is promised vet-clean (printf verbs in graph names,
	// unused locals), which building alone does not check.
	if err := toolCommand(dir, stderr, "go", "vet", "./wrapper").Run(); err != nil {
		return fmt.Errorf("selftest: go vet of the generated Go for %s failed: %w", p.Graph.Name, err)
	}
	if !runIt {
		fmt.Fprintf(stdout, "selftest: built %s (Go), not run\n", p.Graph.Name)
		return nil
	}
	return runSelftestBinary(bin, dir, p.Graph.Name, stdout, stderr)
}

func writeUnder(dir string, files []emit.File) error {
	var out []outFile
	for _, f := range files {
		out = append(out, outFile{filepath.Join(dir, filepath.FromSlash(f.Path)), f.Content})
	}
	return writeGenerated(out, nil)
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

// guardFailure is how both runtimes end the error of a guard that fails.
const guardFailure = "does not hold (wrapgen could not prove it for every symbol value in range, so the wrapper checks it)"

func runSelftestBinary(bin, dir, name string, stdout, stderr io.Writer, args ...string) error {
	var out bytes.Buffer
	var err error
	for try := 0; ; try++ {
		out.Reset()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdout = &out
		cmd.Stderr = &out
		// A binary just written may still be open for writing in a child
		// another goroutine forked meanwhile (golang/go#22315): exec then
		// fails with "text file busy" until that child has exec'd.
		if err = cmd.Run(); !errors.Is(err, syscall.ETXTBSY) || try == 20 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	text := strings.TrimSpace(out.String())
	if err != nil && strings.Contains(text, guardFailure) {
		// A fact wrapgen could not prove is false at these values, and the
		// wrapper stopped before running: what it must do.
		_, msg, _ := strings.Cut(text, "FAIL (Run): ")
		fmt.Fprintf(stdout, "selftest: stopped at a guard, as the wrapper must at these values: %s\n", msg)
		return nil
	}
	if err != nil {
		return &checkFailed{fmt.Sprintf("selftest of %s failed (%v): %s", name, err, text)}
	}
	fmt.Fprintln(stdout, text)
	return nil
}

func selftestCpp(p *plan.Plan, env expr.Env, dir string, compilers []string, runIt bool, stdout, stderr io.Writer) error {
	// The values go to the program as arguments, not into its source, so
	// that one build (cached by the sources' hash) serves every -at.
	files, err := cpp.SelftestFiles(p, nil)
	if err != nil {
		return err
	}
	var out []outFile
	var sources []string
	sum := sha256.New()
	for _, f := range files {
		out = append(out, outFile{filepath.Join(dir, f.Path), f.Content})
		if strings.HasSuffix(f.Path, ".cc") {
			sources = append(sources, f.Path)
		}
		fmt.Fprintf(sum, "%s %d\n", f.Path, len(f.Content))
		sum.Write(f.Content)
	}
	if err := writeGenerated(out, nil); err != nil {
		return err
	}
	if len(compilers) == 0 {
		return fmt.Errorf("selftest -lang cpp: no C++ compiler found (install g++ or set CXX)")
	}
	var args []string
	for _, s := range p.Graph.Symbols {
		args = append(args, fmt.Sprintf("%s=%d", s.Name, env[s.Name]))
	}
	for _, cxx := range compilers {
		key := sha256.New()
		key.Write(sum.Sum(nil))
		fmt.Fprintln(key, cxx, strings.Join(cxxFlags, " "))
		bin, cached := selftestCache(fmt.Sprintf("%x", key.Sum(nil)))
		if !cached {
			tmp := filepath.Join(dir, "selftest-"+filepath.Base(cxx))
			start := time.Now()
			fmt.Fprintf(stderr, "selftest: building %s with %s and sanitizers (%d sources)...\n", p.Graph.Name, filepath.Base(cxx), len(sources))
			if err := buildCpp(dir, stderr, cxx, sources, tmp); err != nil {
				return fmt.Errorf("selftest: compiling the generated C++ for %s with %s failed: %w", p.Graph.Name, cxx, err)
			}
			fmt.Fprintf(stderr, "selftest: built %s with %s and sanitizers in %.1f s\n", p.Graph.Name, filepath.Base(cxx), time.Since(start).Seconds())
			bin = storeSelftest(tmp, bin)
		}
		if !runIt {
			fmt.Fprintf(stdout, "selftest: built %s (C++, %s), not run\n", p.Graph.Name, filepath.Base(cxx))
			continue
		}
		if err := runSelftestBinary(bin, dir, p.Graph.Name, stdout, stderr, args...); err != nil {
			return err
		}
	}
	return nil
}

// buildCpp compiles each source with cxxFlags, all at once (sanitizer
// builds are slow and the sources independent), then links them into bin.
// The runtime's source is the same in every selftest: its object is kept
// in the cache by the runtime's contents, compiler and flags, so that it is
// compiled once, not once per graph.
func buildCpp(dir string, stderr io.Writer, cxx string, sources []string, bin string) error {
	flags := append([]string{}, cxxFlags...)
	if base := filepath.Base(cxx); strings.HasSuffix(base, "g++") && !strings.Contains(base, "clang") {
		// Large generated functions exceed GCC's variable-tracking
		// budget; it then prints notes and retries. Skip the attempt.
		flags = append(flags, "-fno-var-tracking-assignments")
	}
	objects := make([]string, len(sources))
	keep := make([]string, len(sources)) // where a runtime object compiled now goes in the cache
	logs := make([]bytes.Buffer, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, src := range sources {
		objects[i] = strings.TrimSuffix(src, filepath.Ext(src)) + ".o"
		if filepath.Base(src) == cpp.RuntimeSource {
			obj, cached := runtimeObject(dir, cxx, flags)
			if cached {
				objects[i] = obj
				continue
			}
			keep[i] = obj
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append(append([]string{}, flags...), "-c", src, "-o", objects[i])
			errs[i] = toolCommand(dir, &logs[i], cxx, args...).Run()
		}()
	}
	wg.Wait()
	for i := range sources {
		stderr.Write(logs[i].Bytes())
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, cached := range keep {
		if cached != "" {
			storeSelftest(filepath.Join(dir, objects[i]), cached)
		}
	}
	return toolCommand(dir, stderr, cxx, append(append(flags, "-o", bin), objects...)...).Run()
}

// runtimeObject is where the cache keeps the runtime's object built from
// the runtime files in dir by cxx with flags, and whether it is there.
func runtimeObject(dir, cxx string, flags []string) (string, bool) {
	key := sha256.New()
	for _, name := range []string{cpp.RuntimeHeader, cpp.RuntimeSource} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return "", false
		}
		fmt.Fprintf(key, "%s %d\n", name, len(data))
		key.Write(data)
	}
	fmt.Fprintln(key, cxx, strings.Join(flags, " "))
	return selftestCache(fmt.Sprintf("runtime-%x.o", key.Sum(nil)))
}

// selftestCache is where a selftest binary (or the runtime's object) built
// from sources with this key is kept, and whether it is there: building generated C++ with sanitizers
// is slow, and the same sources run at other symbol values need no rebuild.
func selftestCache(key string) (string, bool) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", false
	}
	bin := filepath.Join(dir, "wrapgen", "selftest-cpp", key)
	_, err = os.Stat(bin)
	return bin, err == nil
}

// storeSelftest moves a built binary (or object) into the cache and
// returns the path to use; when there is no cache, where it was built.
func storeSelftest(built, cached string) string {
	if cached == "" || os.MkdirAll(filepath.Dir(cached), 0o755) != nil {
		return built
	}
	// A temporary name of its own: selftests in other processes, or in
	// this one (tests run them in parallel), may store the same file.
	data, err := os.ReadFile(built)
	if err != nil {
		return built
	}
	f, err := os.CreateTemp(filepath.Dir(cached), filepath.Base(cached)+".tmp*")
	if err != nil {
		return built
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Close(), os.Chmod(f.Name(), 0o755)); err != nil || os.Rename(f.Name(), cached) != nil {
		os.Remove(f.Name())
		return built
	}
	return cached
}

// cxxFlags build generated C++ as strictly as users are promised it
// compiles, with sanitizers that turn any memory error into a failure.
var cxxFlags = []string{"-std=c++17", "-O1", "-g", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror",
	"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"}

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
