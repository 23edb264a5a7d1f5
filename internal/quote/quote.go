// Package quote is the only way a string taken from a graph (a name, a
// device, a string attribute, the graph file's name) reaches generated
// source: one function per language for a string literal and one for
// comment text; and Text, for a name in wrapgen's own output. Each accepts every byte sequence, including invalid UTF-8,
// and returns text that the compiler reads back as exactly those bytes
// (literals) or that cannot end a comment, start a new line, or form a
// trigraph or printf verb (comments).
package quote

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go is a Go interpreted string literal holding exactly s's bytes:
// control characters, invalid UTF-8 and non-printable runes are escaped.
func Go(s string) string { return strconv.Quote(s) }

// GoComment is s as text for a // comment: quoted as a Go literal, so a
// newline, a control character or invalid UTF-8 (which gofmt rejects in
// source) cannot appear raw.
func GoComment(s string) string { return Go(s) }

// Cpp is a C++ narrow string literal holding exactly s's bytes. Printable
// ASCII stays as it is except `"`, `\` and `?` (escaped, so that no
// trigraph such as ??= can form); every other byte is a three-digit octal
// escape, which, unlike \x, cannot swallow a following digit.
func Cpp(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '?':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + c>>3&7)
			b.WriteByte('0' + c&7)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CppComment is s as text for a // comment: quoted as a C++ literal, so it
// holds only printable ASCII, never ends with a backslash (which would
// continue the comment onto the next line) and has no trigraph.
func CppComment(s string) string { return Cpp(s) }

// Text is s as a name in wrapgen's own output (a terminal, a log): as it
// is when every rune is a printable character, else quoted as a Go literal,
// so that a carriage return, an escape sequence or invalid UTF-8 in a graph
// name cannot rewrite or hide what is printed around it.
func Text(s string) string {
	if s != "" && utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return Go(s)
}
