package golang

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// The runtime is a real package of this repository (tested there) that
// wrapgen copies into the user's tree, so generated code never imports
// wrapgen.
//
//go:embed wgrt/*.go
var runtimeFS embed.FS

// RuntimeFiles returns the vendored runtime's source files (tests left
// out), each under dir, with a banner saying where they come from.
func RuntimeFiles(dir string) []emit.File {
	entries, err := fs.ReadDir(runtimeFS, "wgrt")
	if err != nil {
		panic(err) // embedded at build time
	}
	var files []emit.File
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := runtimeFS.ReadFile("wgrt/" + name)
		if err != nil {
			panic(err)
		}
		content := append([]byte("// "+Banner+"\n// Vendored runtime of github.com/wrapgen/wrapgen (wrapper/golang/wgrt).\n\n"), data...)
		files = append(files, emit.File{Path: path.Join(dir, name), Content: content})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files
}
