//go:build !unix

package wgref

import "math"

// processCPU is not measured here.
func processCPU() float64 { return math.NaN() }
