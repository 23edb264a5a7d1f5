package graph

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a graph: where it is and what is wrong.
type Problem struct {
	File  string
	Line  int    // 1-based; 0 when the problem has no single spot in the file
	Col   int    // 1-based
	Place string // e.g. `ops[12] (kernel "conv2d")` or `tensors["t7"].shape[1]`
	Msg   string
}

func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
	}
	b.WriteString(": ")
	if p.Place != "" {
		b.WriteString(p.Place)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// ErrorList collects every problem found in one graph, in file order, so a
// user fixes them all in one round instead of one per run.
type ErrorList []*Problem

func (l ErrorList) Error() string {
	const shown = 20
	var b strings.Builder
	for i, p := range l {
		if i == shown {
			fmt.Fprintf(&b, "\n(and %d more problems)", len(l)-shown)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Error())
	}
	return b.String()
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
