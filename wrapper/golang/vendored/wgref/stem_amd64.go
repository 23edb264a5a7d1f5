package wgref

// stemTapsVector is whether convStem may run (stem_amd64.s's kernels;
// tests switch it off to compare with im2col).
var stemTapsVector = haveAVX2FMA

//go:noescape
func kernel6x16Taps(kc int, a, b *float32, offs *int, c *float32, ldc int)

//go:noescape
func kernel12x32Taps(kc int, a, b *float32, offs *int, c *float32, ldc int)

//go:noescape
func kernel12x16Taps(kc int, a, b *float32, offs *int, c *float32, ldc int)

//go:noescape
func kernel4x32Taps(kc int, a, b *float32, offs *int, c *float32, ldc int)

//go:noescape
func deinterleaveAVX2(even, odd, src *float32, n int)
