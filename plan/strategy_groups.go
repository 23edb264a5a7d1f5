package plan

type poolGroup struct {
	device  string
	buffers []*Buffer
}

// poolGroups splits buffers into pools as the memory_pool mode says, with
// the outputs' pools hosting intermediates before the outputs are born.
// Strategies tried by best share the result, which they only read.
func poolGroups(req *request) []poolGroup {
	if req.groups == nil {
		req.groups = hostInOutputPools(req, modeGroups(req))
	}
	return req.groups
}

// modeGroups splits buffers into pools as the memory_pool mode says: per
// device; with "intermediates" each output alone, with "outputs" the outputs
// together, with "combined" everything together, with "none" every buffer
// alone.
func modeGroups(req *request) []poolGroup {
	var devices []string
	byDev := map[string][]*Buffer{}
	for _, b := range req.buffers {
		if _, ok := byDev[b.device]; !ok {
			devices = append(devices, b.device)
		}
		byDev[b.device] = append(byDev[b.device], b)
	}
	var out []poolGroup
	for _, d := range devices {
		var outs, inter []*Buffer
		for _, b := range byDev[d] {
			if b.Output && req.mode != PoolCombined {
				outs = append(outs, b)
			} else {
				inter = append(inter, b)
			}
		}
		switch req.mode {
		case PoolNone:
			for _, b := range byDev[d] {
				out = append(out, poolGroup{d, []*Buffer{b}})
			}
			continue
		case PoolOutputs:
			if len(outs) > 0 {
				out = append(out, poolGroup{d, outs})
			}
		case PoolIntermediates:
			for _, b := range outs {
				out = append(out, poolGroup{d, []*Buffer{b}})
			}
		}
		if len(inter) > 0 {
			out = append(out, poolGroup{d, inter})
		}
	}
	return out
}
