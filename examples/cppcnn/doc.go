// Package cppcnn is the example to copy for running an exported CNN from
// C++ with wrapgen's C++ reference kernels, no kernel written by hand.
//
// make.py exports a small CNN from PyTorch (a conv-bn-relu stem, max
// pooling, a residual block, a depthwise-separable block with HardSwish,
// global average pooling and a Linear head; random weights, dynamic batch,
// 3x64x64 images) to cnn.onnx, with a fixed input (input.npy) and
// PyTorch's output for it (expected.npy). wrapgen writes the params
// (PyTorch's exporter has folded the batch norms into the convolutions) to
// cnn.safetensors, the file the wrapper's LoadParams reads, and the
// readable graph to cnn.json, and generates the wrapper, the runtime, the
// reference kernels (gen/wgref/) and a CMakeLists.txt into gen/.
// cpp/main.cc is what a user writes: it loads the params, reads the
// input, runs the model through a Runner with RefKernels, checks the
// output against PyTorch's (exiting 1 when it differs) and times calls at
// one and two threads. CMakeLists.txt builds it on top of gen/:
//
//	cmake -S examples/cppcnn -B build && cmake --build build -j
//	build/cppcnn examples/cppcnn
//
// The Go test builds it with g++ and with CMake (when installed) and runs
// it. The C++ is in cpp/ because the go command refuses C++ files beside
// Go files without cgo.
package cppcnn

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen import -q -o cnn.json -weights cnn.safetensors cnn.onnx
//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -q -lang cpp -kernels ref -o gen cnn.onnx
