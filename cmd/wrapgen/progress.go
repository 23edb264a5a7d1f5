package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress rewrites one status line on a terminal, once a command has run
// for a second, and says nothing when the stream is a file or a pipe,
// where carriage returns would glue the reports to what follows.
type progress struct {
	w       io.Writer
	start   time.Time
	shown   bool
	enabled bool
}

func newProgress(w io.Writer, wanted bool) *progress {
	return &progress{w: w, start: time.Now(), enabled: wanted && isTerminal(w)}
}

func (p *progress) report(format string, args ...any) {
	if !p.enabled || time.Since(p.start) < time.Second {
		return
	}
	fmt.Fprintf(p.w, "\r"+format, args...)
	p.shown = true
}

// done ends the status line, so that the next message starts on its own.
func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
