// Package resnet18 wraps the real ResNet-18 graph (resnet18.json, recorded
// from torchvision) with no-op kernels, to measure what the wrapper itself
// costs per call: planning is done, so a call is pool handling, views and
// kernel dispatch. The naive package is the same graph with every storage
// allocated separately, for comparison.
package resnet18

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -lang go -o resnet18_wrapper.go resnet18.json
