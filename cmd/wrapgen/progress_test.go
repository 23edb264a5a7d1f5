package main

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProgressIsSilentOffATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, true)
	p.start = time.Now().Add(-time.Hour)
	p.report("call %d/%d", 1, 2)
	p.done()
	require.Empty(t, buf.String(), "a pipe or a file gets no carriage-return status lines")

	f, err := os.Create(t.TempDir() + "/log")
	require.NoError(t, err)
	defer f.Close()
	require.False(t, isTerminal(f), "a regular file is not a terminal")
}

func TestProgressEndsItsLine(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, start: time.Now().Add(-time.Hour), enabled: true}
	p.report("call %d/%d", 1, 2)
	p.report("call %d/%d", 2, 2)
	p.done()
	require.Equal(t, "\rcall 1/2\rcall 2/2\n", buf.String())
}
