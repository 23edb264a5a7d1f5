package main

import "github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"

// The .npy reader and writer are the vendored runtime's (wgrt.ReadNpy,
// wgrt.WriteNpy), so a generated wrapper's user reads the files `wrapgen
// run` writes with the same checks.

// readNpy decodes a .npy file's bytes into a contiguous tensor; name is
// the file, for errors.
func readNpy(name string, data []byte) (wgrt.Tensor, error) { return wgrt.ReadNpy(name, data) }

// writeNpy encodes a tensor (any strides) as a .npy file.
func writeNpy(t wgrt.Tensor) ([]byte, error) { return wgrt.WriteNpy(t) }

// each calls f with the element offset of every element of t in row-major
// order.
func each(t wgrt.Tensor, f func(off int)) {
	n := t.NumElements()
	if n == 0 {
		return
	}
	idx := make([]int, len(t.Shape))
	for e := 0; e < n; e++ {
		off := 0
		for d, i := range idx {
			off += i * t.Strides[d]
		}
		f(off)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < t.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
}
