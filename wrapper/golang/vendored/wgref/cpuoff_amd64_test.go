package wgref

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// GODEBUG turns features off as the Go runtime reads it: the feature's
// own setting or cpu.all, the last one given winning.
func TestCPUOffReadsGODEBUG(t *testing.T) {
	for godebug, want := range map[string][2]bool{ // avx512f, avx2 off
		"":                               {false, false},
		"cpu.avx512f=off":                {true, false},
		"gctrace=1,cpu.avx2=off":         {false, true},
		"cpu.all=off":                    {true, true},
		"cpu.all=off,cpu.avx512f=on":     {false, true},
		"cpu.avx512f=off,cpu.avx512f=on": {false, false},
		"cpu.avx512=off,xcpu.avx2=off":   {false, false},
	} {
		t.Setenv("GODEBUG", godebug)
		assert.Equal(t, want, [2]bool{cpuOff("avx512f"), cpuOff("avx2")}, "GODEBUG=%q", godebug)
	}
}
