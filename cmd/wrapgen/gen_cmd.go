package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wrapgen/wrapgen/plan"
	"github.com/wrapgen/wrapgen/wrapper/cpp"
	"github.com/wrapgen/wrapgen/wrapper/golang"
)

const genUsage = `wrapgen gen -lang go -o FILE [-package NAME] [-runtime DIR] [-kernels ref] [flags] GRAPH.json
       wrapgen gen -lang cpp -o DIR [-kernels ref [-main]] [flags] GRAPH.json

Writes the wrapper for GRAPH.json and the runtime it needs. For C++, DIR
gets NAME.h and NAME.cc, and the runtime's wrapgen_runtime.h and
wrapgen_runtime.cc: compile that source once per program, however many
wrappers it links. With -kernels ref, DIR also gets wrapgen's C++
reference kernels (DIR/wgref/: compile every .cc file once per program),
the header's RefKernels class that calls them, and DIR/CMakeLists.txt
(targets wgref, the kernels and the runtime, and NAME, the wrapper:
cmake -S DIR -B build && cmake --build build); with -main too, NAME_main.cc,
a runner of the wrapper on .npy inputs (the CMake target NAME_main; NAME_main
-h for its flags), and the wrapgen_npy.h it includes. With -check, writes
nothing and fails, naming the files, when any file on disk differs from
what gen would write (for CI).`

// genFlags are gen's own flags.
type genFlags struct {
	planFlags
	lang          string
	out           string
	pkg           string
	runtimeDir    string
	runtimeImport string
	check         bool
	quiet         bool
	main          bool
}

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", stdout, stderr)
	var gf genFlags
	gf.register(fs)
	fs.StringVar(&gf.lang, "lang", "go", "language of the wrapper: go or cpp")
	fs.StringVar(&gf.out, "o", "", "output: the Go `file` (-lang go) or the directory for the .h/.cc files (-lang cpp)")
	fs.StringVar(&gf.pkg, "package", "", "Go package `name` of the generated file (default $GOPACKAGE, else the output directory's name)")
	fs.StringVar(&gf.runtimeDir, "runtime", "", "`dir`ectory the vendored Go runtime is written to (default: wgrt beside the output file)")
	fs.StringVar(&gf.runtimeImport, "runtime-import", "", "import `path` of the runtime directory (default: found from go.mod)")
	gf.registerHorizon(fs)
	gf.registerKernels(fs, "`ref`: also write wrapgen's reference kernels (Go: package wgref, beside the runtime; C++: DIR/wgref/ and DIR/CMakeLists.txt), offer them as RefKernels() (C++: the class RefKernels) and plan the scratch memory they need")
	fs.BoolVar(&gf.main, "main", false, "with -lang cpp -kernels ref: also write NAME_main.cc, a runner of the wrapper on .npy inputs ([-params F] [-in NAME=F.npy]... [-out DIR] [-repeat N] [-threads N]), built by the CMakeLists.txt as NAME_main")
	fs.BoolVar(&gf.quiet, "q", false, "print nothing on success (by default each file written is named on standard error)")
	fs.BoolVar(&gf.check, "check", false, "write nothing; fail if any generated file differs from what would be written")
	if help, err := parseFlags(fs, genUsage, args); help || err != nil {
		return err
	}
	path, err := oneGraph(fs)
	if err != nil {
		return err
	}
	if gf.out == "" {
		return &usageError{"gen needs -o"}
	}
	if gf.main && (gf.lang != "cpp" && gf.lang != "c++" || gf.kernels != "ref") {
		return &usageError{"-main: the runner is C++ and calls the reference kernels (use -lang cpp -kernels ref)"}
	}
	if !gf.check {
		if err := gf.checkOutputs(path); err != nil {
			return err
		}
	}
	p, err := gf.loadAndPlan(path)
	if err != nil {
		return err
	}
	backend, ok := backends[gf.lang]
	if !ok {
		return &usageError{fmt.Sprintf("-lang %q: want go or cpp", gf.lang)}
	}
	files, err := backend(&gf, p, path)
	if err != nil {
		return err
	}
	if gf.check {
		if stale := staleFiles(files); len(stale) > 0 {
			return &checkFailed{fmt.Sprintf("generated files are out of date (run wrapgen gen without -check): %s", strings.Join(stale, ", "))}
		}
		return nil
	}
	var report io.Writer = stderr
	if gf.quiet {
		report = nil
	}
	return writeFiles(files, report)
}

// checkOutputs refuses, before any work, outputs gen must not write: -o
// is the Go file (-lang go) or the directory of the C++ files, -runtime a
// directory. The files written under them are checked again, with the
// rest, before any is replaced.
func (gf *genFlags) checkOutputs(graphPath string) error {
	if gf.lang == "go" {
		if err := checkOutput("-o", gf.out, graphPath); err != nil {
			return err
		}
	} else if err := checkOutputDir("-o", gf.out, graphPath); err != nil {
		return err
	}
	if gf.runtimeDir != "" {
		return checkOutputDir("-runtime", gf.runtimeDir, graphPath)
	}
	return nil
}

// backends are the wrapper languages gen writes, by -lang value: each
// returns every file to write, so writing (atomic, or -check) is shared.
var backends = map[string]func(gf *genFlags, p *plan.Plan, graphPath string) ([]outFile, error){
	"go":  (*genFlags).goFiles,
	"cpp": (*genFlags).cppFiles,
	"c++": (*genFlags).cppFiles,
}

// goFiles generates the Go wrapper and the vendored runtime.
func (gf *genFlags) goFiles(p *plan.Plan, graphPath string) ([]outFile, error) {
	pkg := gf.pkg
	if pkg == "" {
		pkg = os.Getenv("GOPACKAGE")
	}
	if pkg == "" {
		abs, err := filepath.Abs(filepath.Dir(gf.out))
		if err != nil {
			return nil, err
		}
		pkg = sanitizePackage(filepath.Base(abs))
	}
	rtDir := gf.runtimeDir
	if rtDir == "" {
		rtDir = filepath.Join(filepath.Dir(gf.out), "wgrt")
	}
	rtImport := gf.runtimeImport
	if rtImport == "" {
		var err error
		if rtImport, err = importPathOf(rtDir); err != nil {
			return nil, err
		}
	}
	opts := golang.Options{Package: pkg, RuntimeImport: rtImport, Source: filepath.Base(graphPath), File: gf.out}
	refDir := filepath.Join(filepath.Dir(rtDir), "wgref")
	if gf.kernels == "ref" {
		opts.RefKernelsImport = path.Join(path.Dir(rtImport), "wgref")
	}
	generated, err := golang.Generate(p, opts)
	if err != nil {
		return nil, err
	}
	var files []outFile
	for _, f := range generated {
		files = append(files, outFile{f.Path, f.Content})
	}
	vendored := golang.RuntimeFiles(rtDir)
	if gf.kernels == "ref" {
		vendored = append(vendored, golang.RefKernelFiles(refDir, rtImport)...)
	}
	for _, f := range vendored {
		files = append(files, outFile{f.Path, f.Content})
	}
	return files, nil
}

// sanitizePackage turns a directory name into a package name.
func sanitizePackage(dir string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(dir) {
		if r >= 'a' && r <= 'z' || r == '_' || (r >= '0' && r <= '9' && b.Len() > 0) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "wrapper"
	}
	return b.String()
}

// cppFiles generates <name>.h, <name>.cc and the runtime (its header and
// source) into the output directory; with -kernels ref also the C++
// reference kernels (wgref/) and CMakeLists.txt, and with -main the runner
// <name>_main.cc and the .npy header it includes.
func (gf *genFlags) cppFiles(p *plan.Plan, graphPath string) ([]outFile, error) {
	ref := gf.kernels == "ref"
	files, err := cpp.Generate(p, cpp.Options{Source: filepath.Base(graphPath), RefKernels: ref, Main: gf.main})
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(files[0].Path, ".h") // the wrapper's files come first: base.h, base.cc
	files = append(files, cpp.Runtime()...)
	if ref {
		files = append(files, cpp.RefKernelFiles()...)
		files = append(files, cpp.CMakeLists(base, p.Graph.Name, gf.main))
	}
	var out []outFile
	for _, f := range files {
		out = append(out, outFile{filepath.Join(gf.out, f.Path), f.Content})
	}
	return out, nil
}
