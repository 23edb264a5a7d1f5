package plan

// rewriteToPoolLines turns Alloc and Free lines into AllocFromPool and
// DeallocFromPool, marks each pool's first and last use as Inductor's planner's
// mark_first_last_usage does, and adds PoolCreate / PoolRelease lines there.
// A pool first (or last) used inside a loop is created before (released
// after) the outermost loop around that use, so no loop body allocates.
func rewriteToPoolLines(lines []*Line, pools []*Pool) []*Line {
	// outermost[i] is the index of the outermost LoopBegin around line i,
	// or -1; endOf maps a LoopBegin index to its LoopEnd index.
	outermost := make([]int, len(lines))
	endOf := map[int]int{}
	var stack []int
	for i, l := range lines {
		switch l.Kind {
		case LineLoopBegin:
			stack = append(stack, i)
		case LineLoopEnd:
			endOf[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		}
		outermost[i] = -1
		if len(stack) > 0 {
			outermost[i] = stack[0]
		}
	}
	out := make([]*Line, len(lines))
	copies := make([]Line, len(lines)) // one allocation for all the new lines
	for i, l := range lines {
		nl := &copies[i]
		*nl = *l
		switch l.Kind {
		case lineAlloc:
			nl.Kind, nl.Pool = LineAllocFromPool, l.Buffer.Pool
		case lineFree:
			nl.Kind, nl.Pool = LineDeallocFromPool, l.Buffer.Pool
		}
		out[i] = nl
	}
	createBefore := map[int][]*Pool{}
	releaseAfter := map[int][]*Pool{}
	seen := map[*Pool]bool{}
	for i, l := range out {
		if l.Kind == LineAllocFromPool && !seen[l.Pool] {
			seen[l.Pool] = true
			l.firstUse = true
			at := i
			if outermost[i] >= 0 {
				at = outermost[i]
			}
			createBefore[at] = append(createBefore[at], l.Pool)
		}
	}
	seen = map[*Pool]bool{}
	for i := len(out) - 1; i >= 0; i-- {
		l := out[i]
		if l.Kind == LineDeallocFromPool && !seen[l.Pool] {
			seen[l.Pool] = true
			l.lastUse = l.Pool.End <= l.Step
			if l.lastUse {
				at := i
				if outermost[i] >= 0 {
					at = endOf[outermost[i]]
				}
				releaseAfter[at] = append(releaseAfter[at], l.Pool)
			}
		}
	}
	res := make([]*Line, 0, len(out)+2*len(pools))
	for i, l := range out {
		for _, p := range createBefore[i] {
			res = append(res, &Line{Kind: LinePoolCreate, Pool: p, Depth: lines[i].Depth})
		}
		res = append(res, l)
		for _, p := range releaseAfter[i] {
			res = append(res, &Line{Kind: LinePoolRelease, Pool: p, Depth: l.Depth})
		}
	}
	return res
}
