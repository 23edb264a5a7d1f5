package wgref

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingTask counts how often each part runs.
type countingTask struct{ runs []atomic.Int32 }

func (c *countingTask) runPart(i int) { c.runs[i].Add(1) }

// Every part of every run runs exactly once, runs following each other
// quickly enough that workers woken for one run come up during the next.
func TestWorkerPoolRunsEachPartOnce(t *testing.T) {
	SetThreads(3)
	defer SetThreads(1)
	task := &countingTask{runs: make([]atomic.Int32, 64)}
	workers.mu.Lock()
	defer workers.mu.Unlock()
	for run := 0; run < 2000; run++ {
		parts := 1 + run%len(task.runs)
		workers.run(task, parts)
		for i := range task.runs {
			want := int32(0)
			if i < parts {
				want = 1
			}
			require.Equal(t, want, task.runs[i].Swap(0), "run %d part %d of %d", run, i, parts)
		}
	}
}
