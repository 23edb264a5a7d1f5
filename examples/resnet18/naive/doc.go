// Package naive is the ResNet-18 wrapper generated with -memory-pool none:
// every storage allocated separately at its first use.
package naive

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -lang go -memory-pool none -runtime ../wgrt -o naive_wrapper.go ../resnet18.json
