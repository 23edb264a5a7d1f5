package wgref

// stemTapsVector is whether convStem may run (the AVX2 path's kernel;
// tests switch it off to compare with im2col).
var stemTapsVector = haveAVX2FMA

//go:noescape
func kernel6x16Taps(kc int, a, b *float32, offs *int, c *float32, ldc int)

//go:noescape
func deinterleaveAVX2(even, odd, src *float32, n int)
