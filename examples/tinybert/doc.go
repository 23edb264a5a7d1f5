// Package tinybert runs a small BERT-style encoder exported from PyTorch
// with its weights inside the .onnx file (export.py; expected.json records
// PyTorch's outputs): wrapgen imports tinybert.onnx, writes its params to
// tinybert.safetensors and generates tinybert_wrapper.go with wrapgen's
// reference kernels vendored beside it (wgref), so it runs with no kernel
// written by hand. The test loads the params once, runs through a Runner
// and compares with PyTorch.
package tinybert

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen import -q -o tinybert.json -weights tinybert.safetensors tinybert.onnx
//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -q -lang go -kernels ref -o tinybert_wrapper.go tinybert.onnx
