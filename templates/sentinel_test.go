package templates

import "testing"

// TestSentinelChecks compiles and runs testdata/sentinel_checks.cc as
// TestRuntimeViews does: the selftest's checker finds the same corrupt
// element and byte whether it walks a tensor by contiguous runs or element
// by element, catches a stale block inside a run, and counts the bytes no
// op wrote.
func TestSentinelChecks(t *testing.T) {
	runRuntimeTest(t, "sentinel_checks.cc")
}
