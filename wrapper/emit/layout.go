package emit

import (
	"strings"
	"unicode/utf8"

	"github.com/wrapgen/wrapgen/graph/expr"
	"github.com/wrapgen/wrapgen/plan"
)

// Layout of generated source: both backends break what would make a long
// line (lists, comments) the same way, here.

// Width is the line width generated code is laid out in: a list or a
// comment that would pass it is broken. It leaves room under LineLimit for
// gofmt's alignment and for graph names.
const Width = 120

// LineLimit is the longest line generated code has, unless one
// graph-derived name is too long to fit on any line.
const LineLimit = 160

// tabWidth is how many columns a tab takes in layout decisions.
const tabWidth = 4

// List is items between Open and Close, separated by ", ": on one line
// when that fits in Width, else broken, the items on lines one level
// deeper, as many to a line as fit (Fill) or one per line. A broken list
// puts each item's comma after it and Close on a line of its own (Go's
// style, where the last comma is needed), or with Hug starts its first
// item right after Open and ends with Close right after its last (Go and
// C++ both read that, and a C++ argument list needs it).
type List struct {
	Open, Close string
	Items       []Item
	Fill, Hug   bool
}

// Item is a list element: Text, then List when the element ends with a
// list of its own (a key and its composite literal, a call's name and
// arguments), which is broken the same way when it alone does not fit.
type Item struct {
	Text string
	List *List
}

// Texts are items of plain text.
func Texts(ss []string) []Item {
	items := make([]Item, len(ss))
	for i, s := range ss {
		items[i] = Item{Text: s}
	}
	return items
}

// Line is the list on one line.
func (l *List) Line() string {
	var b strings.Builder
	l.line(&b)
	return b.String()
}

func (l *List) line(b *strings.Builder) {
	b.WriteString(l.Open)
	for i, it := range l.Items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(it.Text)
		if it.List != nil {
			it.List.line(b)
		}
	}
	b.WriteString(l.Close)
}

// Format lays the list out from column col of a line indented by indent
// (unit is one level of indentation); tail is how many characters follow
// Close on its line.
func (l *List) Format(indent, unit string, col, tail int) string {
	one := l.Line()
	if len(l.Items) == 0 || col+Columns(one)+tail <= Width {
		return one
	}
	inner := indent + unit
	start := Columns(inner)
	var b strings.Builder
	b.WriteString(l.Open)
	at := 0 // the column the current line has reached; 0 at a line's start
	if l.Hug {
		at = col + Columns(l.Open)
	}
	for i, it := range l.Items {
		last := i == len(l.Items)-1
		after := 1 // the comma
		if last && l.Hug {
			after = len(l.Close) + tail
		}
		text := it.Text
		if it.List != nil {
			text += it.List.Line()
		}
		switch {
		case l.Hug && i == 0:
			if it.List != nil {
				text = it.Text + it.List.Format(indent, unit, at+Columns(it.Text), after)
			}
			b.WriteString(text)
		case l.Fill && at > start && at+1+Columns(text)+after <= Width:
			b.WriteString(" " + text)
			at++
		default:
			if it.List != nil {
				text = it.Text + it.List.Format(inner, unit, start+Columns(it.Text), after)
			}
			b.WriteString("\n" + inner + text)
			at = start
		}
		at += Columns(text)
		if nl := strings.LastIndexByte(text, '\n'); nl >= 0 {
			at = Columns(text[nl+1:])
		}
		if !last || !l.Hug {
			b.WriteString(",")
			at++
		}
	}
	if l.Hug {
		b.WriteString(l.Close)
	} else {
		b.WriteString("\n" + indent + l.Close)
	}
	return b.String()
}

// Columns is how wide s is on screen (a tab taking tabWidth).
func Columns(s string) int {
	return utf8.RuneCountInString(s) + (tabWidth-1)*strings.Count(s, "\t")
}

// WrapText breaks text into lines of at most width columns where it has a
// space, never inside a quoted name (a word longer than width stays whole
// on its own line).
func WrapText(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range words(text) {
		switch {
		case line == "":
			line = w
		case Columns(line)+1+Columns(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// words splits text at spaces outside double-quoted strings (the way both
// backends quote graph names, with backslash escapes).
func words(text string) []string {
	var ws []string
	start, quoted := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ' ' && !quoted:
			if i > start {
				ws = append(ws, text[start:i])
			}
			start = i + 1
		}
	}
	if start < len(text) {
		ws = append(ws, text[start:])
	}
	return ws
}

// rowCol is the column where table rows start in either backend (at most:
// Go's plan rows are four tabs deep).
const rowCol = 4 * tabWidth

// CommentedRow is a table row with a // comment: beside it when both fit
// in Width, else the comment wrapped on lines of its own above the row.
func CommentedRow(row, comment string) string {
	if rowCol+Columns(row)+4+Columns(comment) <= Width {
		return row + "  // " + comment
	}
	var b strings.Builder
	for _, l := range WrapText(comment, Width-rowCol-3) {
		b.WriteString("// " + l + "\n")
	}
	return b.String() + row
}

// ShortExpr is e as generated comments print it: cut when long as the plan
// report cuts it (plan.ShortExpr); `wrapgen plan -json` has it whole.
func ShortExpr(e expr.Expr) string { return plan.ShortExpr(e.String(), "wrapgen plan -json") }
