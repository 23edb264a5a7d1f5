//go:build !amd64

package wgref

func expShiftSum(dst, src []float32, shift float32) float64 { return expShiftSumGo(dst, src, shift) }
