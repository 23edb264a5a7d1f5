package golang

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// The runtime is a real package of this repository (tested there) that
// wrapgen copies into the user's tree, so generated code never imports
// wrapgen.
//
//go:embed vendored/wgrt/*.go
var runtimeFS embed.FS

// The reference kernels are vendored the same way, beside the runtime,
// when gen is asked for them (-kernels ref).
//
//go:embed vendored/wgref/*.go vendored/wgref/*.s vendored/wgref/*.h
var refFS embed.FS

// runtimePackage is the runtime's import path in this repository, which
// the vendored reference kernels import under the user's path instead.
const runtimePackage = "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// RuntimeFiles returns the vendored runtime's source files (tests left
// out), each under dir, with a banner saying where they come from.
func RuntimeFiles(dir string) []emit.File {
	return vendored(runtimeFS, "wgrt", dir, "runtime", nil)
}

// RefKernelFiles returns the vendored reference kernels' source files,
// each under dir, importing the runtime at runtimeImport.
func RefKernelFiles(dir, runtimeImport string) []emit.File {
	return vendored(refFS, "wgref", dir, "reference kernels", strings.NewReplacer(strconv.Quote(runtimePackage), strconv.Quote(runtimeImport)))
}

func vendored(fsys embed.FS, pkg, dir, what string, rewrite *strings.Replacer) []emit.File {
	entries, err := fs.ReadDir(fsys, "vendored/"+pkg)
	if err != nil {
		panic(err) // embedded at build time
	}
	var files []emit.File
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fsys.ReadFile("vendored/" + pkg + "/" + name)
		if err != nil {
			panic(err)
		}
		if rewrite != nil {
			data = []byte(rewrite.Replace(string(data)))
		}
		content := append([]byte("// "+Banner+"\n// Vendored "+what+" of github.com/wrapgen/wrapgen (wrapper/golang/vendored/"+pkg+").\n\n"), data...)
		files = append(files, emit.File{Path: path.Join(dir, name), Content: content})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files
}
