// Package cppref runs wgref's C++ kernels (templates/wgref) from Go: it
// builds them once, with a small server (server/serve.cc) that takes
// kernel calls on its standard input, and offers that server as a
// wgrt.KernelFunc, so the ONNX node tests, the model checks and `wrapgen
// run -lang cpp` run the C++ kernels through package interp exactly as
// they run the Go ones.
package cppref

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/wrapgen/wrapgen/templates"
)

//go:embed server/serve.cc server/allocs.cc
var serveFS embed.FS

// Options say how to build the kernels.
type Options struct {
	// CXX is the compiler (default $CXX, else g++).
	CXX string
	// Flags are added to the compiler's (e.g. sanitizers).
	Flags []string
	// SkipBroken builds a server from the files that compile, replacing
	// a kernel file that does not with one that registers nothing (for
	// work in progress; never in CI).
	SkipBroken bool
	// Exec runs the server through a program (e.g. qemu-aarch64 for an
	// arm64 build): its words, before the server's path.
	Exec []string
}

// OptionsFromEnv are the options tests and tools take from the
// environment: $CXX, WRAPGEN_CPP_FLAGS (words added to the compiler's),
// WRAPGEN_CPP_EXEC (words the server is run through) and
// WRAPGEN_CPP_SKIP_BROKEN=1.
func OptionsFromEnv() Options {
	return Options{
		CXX:        os.Getenv("CXX"),
		Flags:      strings.Fields(os.Getenv("WRAPGEN_CPP_FLAGS")),
		Exec:       strings.Fields(os.Getenv("WRAPGEN_CPP_EXEC")),
		SkipBroken: os.Getenv("WRAPGEN_CPP_SKIP_BROKEN") == "1",
	}
}

// Sources are the files the server is built from, by path in its build
// directory: the runtime, the kernels under wgref/, and the server's
// serve.cc and allocs.cc.
func Sources() (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(templates.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var dst string
		switch {
		case strings.HasPrefix(path, "runtime/"):
			dst = strings.TrimPrefix(path, "runtime/")
		case strings.HasPrefix(path, "wgref/"):
			dst = path
		default:
			return nil
		}
		data, err := templates.FS.ReadFile(path)
		files[dst] = data
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"serve.cc", "allocs.cc"} {
		data, err := serveFS.ReadFile("server/" + name)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return files, nil
}

var buildMu sync.Mutex

// Build compiles the server into a cache directory named by a hash of its
// sources and flags, once: later calls with the same sources return the
// same binary. It returns the binary's path.
func Build(opts Options) (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	cxx := opts.CXX
	if cxx == "" {
		cxx = os.Getenv("CXX")
	}
	if cxx == "" {
		cxx = "g++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		return "", fmt.Errorf("cppref: no C++ compiler %q: %w", cxx, err)
	}
	files, err := Sources()
	if err != nil {
		return "", err
	}
	flags := append([]string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread"}, opts.Flags...)
	h := sha256.New()
	fmt.Fprintf(h, "%s %q %v\n", cxx, flags, opts.SkipBroken)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s %d\n", n, len(files[n]))
		h.Write(files[n])
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "wrapgen-cppref", hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, "serve")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	work, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		if err = os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		if work, err = os.MkdirTemp(filepath.Dir(dir), "build-"); err != nil {
			return "", err
		}
	}
	defer os.RemoveAll(work)
	var sources []string
	for _, n := range names {
		p := filepath.Join(work, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return "", err
		}
		if strings.HasSuffix(n, ".cc") {
			sources = append(sources, n)
		}
	}
	compiler := sha256.New()
	fmt.Fprintf(compiler, "%s %q\n", cxx, flags)
	objCache := filepath.Join(base, "wrapgen-cppref", "objects")
	if err := os.MkdirAll(objCache, 0o755); err != nil {
		return "", err
	}
	objects, err := compileAll(compileJob{cxx: cxx, flags: flags, dir: work, cache: objCache, compiler: compiler.Sum(nil), files: files}, sources, opts.SkipBroken)
	if err != nil {
		return "", err
	}
	link := exec.Command(cxx, append(append(append([]string{}, flags...), "-o", "serve"), objects...)...)
	link.Dir = work
	if out, err := link.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cppref: linking: %v\n%s", err, out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(work, "serve"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// compileAll compiles each source to an object, as many at once as there
// are CPUs. With skipBroken, a kernel file that fails is replaced by stubs
// of the register functions it defines.
// compileJob is how to compile one kernel source: an object is kept in
// cache under a hash of the compiler, its flags, the source and every
// header it includes (quoted includes, followed through headers), so a
// change to one kernel file recompiles only the files that see it.
type compileJob struct {
	cxx      string
	flags    []string
	dir      string
	cache    string
	compiler []byte
	files    map[string][]byte
}

// includes adds to seen every file of j.files that src includes, directly
// or through another header ("x.h" relative to the including file, else
// to the build directory).
func (j compileJob) includes(src string, seen map[string]bool) {
	for _, line := range strings.Split(string(j.files[src]), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#include \"") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(line, "#include \""), "\"")
		if i := strings.Index(name, "\""); i >= 0 {
			name = name[:i]
		}
		for _, cand := range []string{path.Join(path.Dir(src), name), path.Clean(name)} {
			if _, ok := j.files[cand]; ok {
				if !seen[cand] {
					seen[cand] = true
					j.includes(cand, seen)
				}
				break
			}
		}
	}
}

func (j compileJob) compile(src string) (string, error) {
	data, err := os.ReadFile(filepath.Join(j.dir, src))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(j.compiler)
	fmt.Fprintf(h, "%s %d\n", src, len(data))
	h.Write(data)
	seen := map[string]bool{}
	j.includes(src, seen)
	var deps []string
	for d := range seen {
		deps = append(deps, d)
	}
	sort.Strings(deps)
	for _, d := range deps {
		fmt.Fprintf(h, "%s %d\n", d, len(j.files[d]))
		h.Write(j.files[d])
	}
	cached := filepath.Join(j.cache, hex.EncodeToString(h.Sum(nil))[:24]+".o")
	obj := strings.TrimSuffix(src, ".cc") + ".o"
	if _, err := os.Stat(cached); err == nil {
		return cached, nil
	}
	cmd := exec.Command(j.cxx, append(append([]string{}, j.flags...), "-I", ".", "-c", "-o", obj, src)...)
	cmd.Dir = j.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("cppref: compiling %s: %v\n%s", src, err, out)
	}
	tmp, err := os.CreateTemp(j.cache, "obj-")
	if err != nil {
		return "", err
	}
	tmp.Close()
	b, err := os.ReadFile(filepath.Join(j.dir, obj))
	if err == nil {
		err = os.WriteFile(tmp.Name(), b, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), cached)
	}
	return cached, err
}

func compileAll(job compileJob, sources []string, skipBroken bool) ([]string, error) {
	cxx, flags, dir := job.cxx, job.flags, job.dir
	objects := make([]string, len(sources))
	errs := make([]error, len(sources))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			obj, err := job.compile(src)
			if err != nil {
				errs[i] = err
				return
			}
			objects[i] = obj
		}()
	}
	wg.Wait()
	var stubs []string
	defined := map[string]bool{}
	for i, err := range errs {
		src, _ := os.ReadFile(filepath.Join(dir, sources[i]))
		if err == nil {
			for _, fn := range registerFuncs(string(src)) {
				defined[fn] = true
			}
			continue
		}
		if !skipBroken || !strings.HasPrefix(sources[i], "wgref/") || sources[i] == "wgref/kernel.cc" || sources[i] == "wgref/registry.cc" {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "cppref: skipping %s, which does not compile:\n%s\n", sources[i], firstLines(err.Error(), 12))
	}
	if skipBroken {
		// Every register function kernel.h declares and no compiled file
		// defines gets a stub.
		header, _ := os.ReadFile(filepath.Join(dir, "wgref", "kernel.h"))
		for _, fn := range registerFuncs(string(header)) {
			if !defined[fn] {
				stubs = append(stubs, "void "+fn+"(Registry*) {}")
			}
		}
	}
	var out []string
	for _, o := range objects {
		if o != "" {
			out = append(out, o)
		}
	}
	if len(stubs) > 0 {
		stub := "#include \"wgref/kernel.h\"\nnamespace wgref { namespace detail {\n" + strings.Join(stubs, "\n") + "\n} }\n"
		if err := os.WriteFile(filepath.Join(dir, "stubs.cc"), []byte(stub), 0o644); err != nil {
			return nil, err
		}
		cmd := exec.Command(cxx, append(append([]string{}, flags...), "-I", ".", "-c", "-o", "stubs.o", "stubs.cc")...)
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("cppref: compiling stubs: %v\n%s", err, o)
		}
		out = append(out, "stubs.o")
	}
	return out, nil
}

// registerFuncs finds the "void RegisterX(Registry* r)" lines (definitions
// in a kernel file, declarations in kernel.h).
func registerFuncs(src string) []string {
	var fns []string
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "void Register") && strings.Contains(line, "(Registry*") {
			name := strings.TrimPrefix(line, "void ")
			fns = append(fns, name[:strings.Index(name, "(")])
		}
	}
	return fns
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
