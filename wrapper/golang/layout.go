package golang

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/wrapgen/wrapgen/wrapper/emit"
)

// Layout of the generated Go: gofmt breaks no line, so wrapgen does, to
// emit.Width. Code built with jen is measured by rendering it (fit);
// tables written as text are laid out by emit.List.

// docWidth is the width of a comment's text, as Go's own docs are wrapped.
const docWidth = 76

// fit is build(false) when that renders, placed by in and indented by
// depth more levels, with no line wider than emit.Width, else build(true):
// the lists it builds (see list) one item per line.
func fit(in func(jen.Code) jen.Code, depth int, build func(multi bool) *jen.Statement) *jen.Statement {
	if c := build(false); fits(in(c), depth) {
		return c
	}
	return build(true)
}

// Places for fit: a declaration, a function's signature (its body laid
// out apart), a statement of a function body, a method of an interface.
var (
	placeDecl      = func(c jen.Code) jen.Code { return c }
	placeSignature = func(c jen.Code) jen.Code { return jen.Add(c).Block() }
	placeStatement = func(c jen.Code) jen.Code { return jen.Func().Id("_").Params().Block(c) }
	placeMethod    = func(c jen.Code) jen.Code { return jen.Type().Id("_").Interface(c) }
)

// fits reports whether code, a declaration, renders with no line wider
// than emit.Width once indented by depth more levels.
func fits(code jen.Code, depth int) bool {
	f := jen.NewFile("p")
	f.Add(code)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return false
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if emit.Columns(line)+4*depth > emit.Width {
			return false
		}
	}
	return true
}

// list is items between open and close separated by commas: one per line
// when multi (gofmt keeps the breaks).
func list(open, close string, multi bool, items ...jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: open, Close: close, Separator: ",", Multi: multi}, items...)
}

// doc emits a comment of several lines as // lines: each paragraph (lines
// that do not start with a space) filled to docWidth, indented lines kept
// as they are (wrapped, deeper, when wider than emit.Width).
func doc(f *jen.File, text string) {
	for _, line := range docLines(text) {
		f.Comment(line)
	}
}

func docf(f *jen.File, format string, args ...any) { doc(f, fmt.Sprintf(format, args...)) }

// docLines is text as comment lines (see doc).
func docLines(text string) []string {
	var out, para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, emit.WrapText(strings.Join(para, " "), docWidth)...)
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, " ") {
			flush()
			if emit.Columns(line) <= emit.Width {
				out = append(out, line)
				continue
			}
			indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
			for i, l := range emit.WrapText(strings.TrimLeft(line, " "), emit.Width-len(indent)-4) {
				if i > 0 {
					l = "    " + l
				}
				out = append(out, indent+l)
			}
			continue
		}
		para = append(para, line)
	}
	flush()
	return out
}

// comments are text as // comments of docWidth, for a Kernels method or a
// struct field.
func comments(text string) []jen.Code {
	var cs []jen.Code
	for _, l := range emit.WrapText(text, docWidth) {
		cs = append(cs, jen.Comment(l))
	}
	return cs
}

// importAs imports path as name, with an alias only when the path's last
// element is not name.
func importAs(f *jen.File, importPath, name string) {
	if path.Base(importPath) == name {
		f.ImportName(importPath, name)
		return
	}
	f.ImportAlias(importPath, name)
}
