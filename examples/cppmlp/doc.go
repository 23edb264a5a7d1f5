// Package cppmlp is a runnable example of a wrapgen C++ wrapper: the MLP of
// examples/mlp with C++ kernels (cpp/kernels.h) and a program (cpp/main.cc) that runs
// it through Run and a Runner at several batch sizes and compares the
// result with a direct computation. The wrapper and the runtime (header and
// source) in gen/ are what wrapgen generates; the Go test builds and runs
// everything.
package cppmlp

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -lang cpp -o gen mlp.json
