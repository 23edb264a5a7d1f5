// Package testenv says which of wrapgen's tests run by default. `go test
// ./...` runs the fast ones, in about a minute on a small machine; the long
// ones (they build and run generated wrappers, compile C++ with
// sanitizers, build modules with the go command, sweep every node test
// through generated code) run when WRAPGEN_LONG_TESTS=1, as CI sets it.
package testenv

import (
	"os"
	"testing"
)

// LongVar is the environment variable that turns the long tests on.
const LongVar = "WRAPGEN_LONG_TESTS"

// Long reports whether the long tests were asked for (and -short was not).
func Long() bool { return os.Getenv(LongVar) == "1" && !testing.Short() }

// SkipUnlessLong skips t unless the long tests were asked for; why says
// what makes it long.
func SkipUnlessLong(t testing.TB, why string) {
	t.Helper()
	if !Long() {
		t.Skipf("%s: set %s=1 to run it (CI does)", why, LongVar)
	}
}
