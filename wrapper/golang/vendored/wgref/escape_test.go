package wgref

import (
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// movedToHeap are the locals of wgref the compiler may move to the heap,
// by file and name, each with why no steady call pays for it.
var movedToHeap = map[string]string{
	// indices' iterator is also compiled as a closure on its own; ranged
	// over, it inlines and buf stays on the caller's stack (the node tests
	// and TestRealModelsSteadyRunAllocatesNothing count every kernel's
	// allocations).
	"movement.go: buf": "the out-of-line copy of an inlined iterator",
	"threads.go: s":    "a worker's sleeper, made once when the pool grows",
	"rnn.go: want":     "shapeError, on the way to an error only",
	// fusedGemmScaled copies an addend or sum in the output's memory before
	// the product overwrites it: alpha other than 1 with C or the sum in
	// place, which no Linear PyTorch exports has (alpha is 1); the plan
	// reserves no scratch for it.
	"fused.go: kept": "an alpha other than 1 with an addend in place",
}

var movedLine = regexp.MustCompile(`(?m)^(?:.*/)?([a-z0-9_]+\.go):(\d+):\d+: moved to heap: (\w+)$`)

// The compiler's escape analysis keeps every kernel's locals on the stack
// (but those movedToHeap lists): a local whose address a hot path hands on
// (the producer call a fused kernel builds, a shape laid out on the stack
// and formatted into an error) moves to the heap, and every call allocates.
// `go build -gcflags=-m` reports it; the build cache replays the report, so
// the test takes well under a second once wgref is built.
func TestKernelLocalsStayOnStack(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build wgref with -gcflags=-m")
	}
	out, err := exec.Command(goCmd, "build", "-gcflags=-m", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	found := map[string][]string{}
	for _, m := range movedLine.FindAllStringSubmatch(string(out), -1) {
		key := m[1] + ": " + m[3]
		found[key] = append(found[key], m[1]+":"+m[2])
	}
	require.NotEmpty(t, found, "no escape report (did -gcflags=-m reach the compiler?):\n%s", out)
	var unexpected []string
	for key, at := range found {
		if _, ok := movedToHeap[key]; !ok {
			sort.Strings(at)
			unexpected = append(unexpected, key+" at "+strings.Join(at, ", "))
		}
	}
	sort.Strings(unexpected)
	require.Empty(t, unexpected, "locals moved to heap: each allocates on every call that reaches it")
}
