package interp

import (
	"sort"
	"time"
)

// OpTime is the time one op's kernel took, summed over the calls since
// TimeOps, with what names it: the op's place in the graph, its kernel,
// and its first output's name and shape at the last call.
type OpTime struct {
	Index  int
	Place  string
	Kernel string
	Output string
	Shape  []int
	Total  time.Duration
}

// TimeOps starts timing each op's kernel call (two clock reads per op,
// nothing allocated per call); OpTimes reads the sums.
func (m *Model) TimeOps() {
	m.opTimes = make([]time.Duration, len(m.calls))
}

// TimeOpsBy makes the times TimeOps sums those own reports after each
// call (a kernel's own time, measured where it runs) instead of the wall
// time around the call.
func (m *Model) TimeOpsBy(own func() time.Duration) { m.ownTime = own }

// OpTimes are the ops' summed times, longest first.
func (m *Model) OpTimes() []OpTime {
	var out []OpTime
	for i, d := range m.opTimes {
		c := &m.calls[i]
		t := OpTime{Index: i, Place: c.Op.Place, Kernel: c.Kernel, Total: d}
		if len(c.Op.Outputs) > 0 {
			t.Output = c.Op.Outputs[0]
		}
		if len(c.Outputs) > 0 {
			t.Shape = append([]int(nil), c.Outputs[0].Shape...)
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Total > out[j].Total })
	return out
}
