package graph

import "sort"

// OtherDevices lists, sorted, the devices other than "cpu" that g's tensors
// are on: those a caller must give allocators for.
func (g *Graph) OtherDevices() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range g.Tensors {
		if t.Device != "cpu" && !seen[t.Device] {
			seen[t.Device] = true
			out = append(out, t.Device)
		}
	}
	sort.Strings(out)
	return out
}
