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
