package wgref

// expActVector is whether expActRow takes expActAVX512 (tests switch it
// off to test the portable path).
var expActVector = haveAVX512

//go:noescape
func expActAVX512(dst, src *float32, n int, sigmoid bool)
