// Package onnxcnn runs a small real CNN exported from PyTorch with its
// weights inside the .onnx file (export.py; expected.json records
// PyTorch's output): wrapgen imports cnn.onnx, writes the weights to
// cnn.safetensors and generates cnn_wrapper.go; kernels.go implements the
// ONNX ops in plain Go, and the test compares the wrapper's output with
// PyTorch's.
package onnxcnn

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen import -o cnn.json -weights cnn.safetensors cnn.onnx
//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -lang go -o cnn_wrapper.go cnn.onnx
