package main

import (
	"fmt"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wrapgen/wrapgen/internal/quote"
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
what gen would write (for CI).

gen replaces only files it wrote (their first line is wrapgen's "Code
generated" banner), never a file of yours of the same name, nor another
graph's wrapper. The folders of the vendored packages (wgrt, wgref) are
wrapgen's: a generated file it no longer writes there is removed (and fails
-check), and a file of yours there is refused.`

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
	files, owned, err := backend(&gf, p, path)
	if err != nil {
		return err
	}
	leftovers, err := ownedLeftovers(owned, files)
	if err != nil {
		return err
	}
	if gf.check {
		if stale := append(staleFiles(files), leftovers...); len(stale) > 0 {
			return &checkFailed{fmt.Sprintf("generated files are out of date (run wrapgen gen without -check): %s", strings.Join(stale, ", "))}
		}
		return nil
	}
	var report io.Writer = stderr
	if gf.quiet {
		report = nil
	}
	if err := writeGenerated(files, report); err != nil {
		return err
	}
	return removeStale(leftovers, report)
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
	if gf.runtimeDir == "" {
		return nil
	}
	if err := checkOutputDir("-runtime", gf.runtimeDir, graphPath); err != nil {
		return err
	}
	if gf.lang != "go" {
		return nil
	}
	// The runtime (and wgref beside it) are packages of their own, whose
	// folders gen writes as a whole: neither may be the wrapper's.
	wrapperDir := filepath.Dir(gf.out)
	if sameDir(gf.runtimeDir, wrapperDir) {
		return fmt.Errorf("-runtime %s: is the folder of the wrapper -o %s; the runtime is a package of its own, so give it a folder of its own (the default is wgrt beside the wrapper)", gf.runtimeDir, gf.out)
	}
	if gf.kernels == "ref" {
		refDir := filepath.Join(filepath.Dir(gf.runtimeDir), "wgref")
		switch {
		case sameDir(refDir, wrapperDir):
			return fmt.Errorf("-runtime %s: -kernels ref writes the kernels' package to %s beside it, which is the folder of the wrapper -o %s; give the runtime a folder elsewhere", gf.runtimeDir, refDir, gf.out)
		case sameDir(refDir, gf.runtimeDir):
			return fmt.Errorf("-runtime %s: -kernels ref writes the kernels' package to wgref beside the runtime, which is this folder; name the runtime's folder otherwise (the default is wgrt)", gf.runtimeDir)
		}
	}
	return nil
}

// sameDir reports whether a and b name one folder: the same path, or (when
// both exist) the same folder by os.SameFile.
func sameDir(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	if errA == nil && errB == nil && absA == absB {
		return true
	}
	stA, errA := os.Stat(a)
	stB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(stA, stB)
}

// backends are the wrapper languages gen writes, by -lang value: each
// returns every file to write, so writing (atomic, or -check) is shared,
// and the folders it owns (writes as a whole, see ownedLeftovers).
var backends = map[string]func(gf *genFlags, p *plan.Plan, graphPath string) (files []outFile, owned []string, err error){
	"go":  (*genFlags).goFiles,
	"cpp": (*genFlags).cppFiles,
	"c++": (*genFlags).cppFiles,
}

// goFiles generates the Go wrapper and the vendored runtime.
func (gf *genFlags) goFiles(p *plan.Plan, graphPath string) ([]outFile, []string, error) {
	pkg := gf.pkg
	if pkg == "" {
		pkg = os.Getenv("GOPACKAGE")
	}
	if pkg != "" && (!token.IsIdentifier(pkg) || pkg == "_") {
		return nil, nil, &usageError{fmt.Sprintf("-package %s: not a Go package name (an identifier, not a keyword or _)", quote.Text(pkg))}
	}
	if pkg == "" {
		abs, err := filepath.Abs(filepath.Dir(gf.out))
		if err != nil {
			return nil, nil, err
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
			return nil, nil, err
		}
	}
	opts := golang.Options{Package: pkg, RuntimeImport: rtImport, Source: filepath.Base(graphPath), File: gf.out}
	refDir := filepath.Join(filepath.Dir(rtDir), "wgref")
	if gf.kernels == "ref" {
		opts.RefKernelsImport = path.Join(path.Dir(rtImport), "wgref")
	}
	generated, err := golang.Generate(p, opts)
	if err != nil {
		return nil, nil, err
	}
	var files []outFile
	for _, f := range generated {
		files = append(files, outFile{f.Path, f.Content})
	}
	vendored := golang.RuntimeFiles(rtDir)
	owned := []string{rtDir}
	if gf.kernels == "ref" {
		vendored = append(vendored, golang.RefKernelFiles(refDir, rtImport)...)
		owned = append(owned, refDir)
	}
	for _, f := range vendored {
		files = append(files, outFile{f.Path, f.Content})
	}
	return files, owned, nil
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
	if token.IsKeyword(b.String()) || b.String() == "_" {
		return b.String() + "_" // a folder named go or type
	}
	return b.String()
}

// cppFiles generates <name>.h, <name>.cc and the runtime (its header and
// source) into the output directory; with -kernels ref also the C++
// reference kernels (wgref/) and CMakeLists.txt, and with -main the runner
// <name>_main.cc and the .npy header it includes.
func (gf *genFlags) cppFiles(p *plan.Plan, graphPath string) ([]outFile, []string, error) {
	ref := gf.kernels == "ref"
	files, err := cpp.Generate(p, cpp.Options{Source: filepath.Base(graphPath), RefKernels: ref, Main: gf.main})
	if err != nil {
		return nil, nil, err
	}
	base := strings.TrimSuffix(files[0].Path, ".h") // the wrapper's files come first: base.h, base.cc
	// Those files are named after the graph, and two graph names can give
	// one file name (tiny_bert and tinyBert): a file generated for another
	// graph is not replaced.
	for _, f := range files {
		if err := sameGraph(filepath.Join(gf.out, f.Path), p.Graph.Name); err != nil {
			return nil, nil, err
		}
	}
	var owned []string
	files = append(files, cpp.Runtime()...)
	if ref {
		files = append(files, cpp.RefKernelFiles()...)
		files = append(files, cpp.CMakeLists(base, p.Graph.Name, gf.main))
		owned = append(owned, filepath.Join(gf.out, cpp.RefKernelsDir))
	}
	var out []outFile
	for _, f := range files {
		out = append(out, outFile{filepath.Join(gf.out, f.Path), f.Content})
	}
	return out, owned, nil
}

// sameGraph refuses a C++ wrapper file at path that wrapgen generated for
// a graph other than name (its second line says which: "(graph NAME)").
func sameGraph(path, name string) error {
	head, ok := fileHead(path)
	if !ok || !isGenerated(head) {
		return nil // a new path; a user's file is refused by writeGenerated
	}
	lines := strings.SplitN(string(head), "\n", 3)
	if len(lines) < 2 {
		return nil
	}
	_, was, found := strings.Cut(lines[1], " (graph ")
	if !found || strings.Contains(lines[1], "(graph "+quote.CppComment(name)+")") {
		return nil
	}
	was, _, _ = strings.Cut(was, "). ")
	was = strings.TrimSuffix(was, ").")
	return fmt.Errorf("%s: was generated for graph %s, and graph %s gives the same file name; wrapgen does not replace another graph's wrapper: rename one of the graphs, or write this one to another folder (-o)", path, was, quote.CppComment(name))
}
