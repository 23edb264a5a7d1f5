// Package wgref is wrapgen's reference kernels: a pure-Go implementation of
// every kernel the ONNX importer produces, with ONNX semantics (broadcasting,
// strided views as the runtime hands them, every attribute the importer
// writes). `wrapgen gen -kernels ref` copies it beside the runtime (wgrt)
// and `wrapgen run` calls it in process.
//
// A kernel is looked up by the name the importer gives it (the ONNX
// op_type) and reads its attributes by the names the importer writes
// (graph/onnx normalises them: every call of a kernel has the same ones).
package wgref
