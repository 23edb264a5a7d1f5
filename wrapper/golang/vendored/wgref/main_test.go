package wgref

import (
	"os"
	"testing"
)

// The tests run on one thread unless they ask for more (withThreads), so
// that each path is tested on purpose, not by the machine's core count.
func TestMain(m *testing.M) {
	SetThreads(1)
	os.Exit(m.Run())
}
