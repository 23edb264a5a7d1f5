//go:build !amd64

package wgref

var expActVector = false

func expActAVX512(dst, src *float32, n int, sigmoid bool) { panic("wgref: no AVX-512 here") }
