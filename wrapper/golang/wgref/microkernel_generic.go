//go:build !amd64

package wgref

// bestKernelPath is the portable kernel where there is no assembly.
func bestKernelPath() kernelPath { return goPath }

// kernelPaths are the paths this CPU can run, for tests.
func kernelPaths() []kernelPath { return []kernelPath{goPath} }
