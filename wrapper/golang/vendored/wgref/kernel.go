package wgref

import (
	"fmt"
	"sort"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Kernel writes c.Outputs from c.Inputs and c.Attrs. It may be called with
// an output that shares memory with an input only where the importer
// declares the kernel may_alias (elementwise kernels); it must then read
// each input element before writing the output element at that position.
type Kernel func(c *wgrt.Call) error

// kernels holds every reference kernel by name; each file registers its own
// in an init function.
var kernels = map[string]Kernel{}

func register(name string, k Kernel) {
	if _, dup := kernels[name]; dup {
		panic("wgref: kernel " + name + " registered twice")
	}
	kernels[name] = k
}

// Call runs the reference kernel c names.
func Call(c *wgrt.Call) error {
	k := kernels[c.Kernel]
	if k == nil {
		return fmt.Errorf("no reference kernel %q", c.Kernel)
	}
	for _, ts := range [2][]wgrt.Tensor{c.Outputs, c.Inputs} {
		for _, t := range ts {
			if len(t.Shape) > maxRank {
				return fmt.Errorf("%s: rank %d is beyond the reference kernels' %d", c.Kernel, len(t.Shape), maxRank)
			}
		}
	}
	return k(c)
}

// Has reports whether there is a reference kernel of that name.
func Has(name string) bool { return kernels[name] != nil }

// Names lists the reference kernels, sorted.
func Names() []string {
	out := make([]string, 0, len(kernels))
	for n := range kernels {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
