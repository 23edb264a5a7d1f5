package wgref

//go:noescape
func kernel6x16(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

func cpuidex(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax uint32)

// haveAVX2FMA reports whether the CPU and the OS support the AVX2 and FMA
// instructions kernel6x16 uses (and the YMM state it needs saved).
var haveAVX2FMA = func() bool {
	_, _, ecx1, _ := cpuidex(1, 0)
	const osxsave, avx, fma = 1 << 27, 1 << 28, 1 << 12
	if ecx1&osxsave == 0 || ecx1&avx == 0 || ecx1&fma == 0 {
		return false
	}
	if xgetbv()&6 != 6 { // XMM and YMM state enabled by the OS
		return false
	}
	_, ebx7, _, _ := cpuidex(7, 0)
	return ebx7&(1<<5) != 0 // AVX2
}()

// microKernel computes C[0:mr][0:nr] (+)= A·B for a packed panel of A and
// nr columns of B ldb apart (see kernel6x16); the assembly where the CPU
// has AVX2 and FMA.
func microKernel(kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	if !haveAVX2FMA {
		microKernelGo(kc, a, b, ldb, c, ldc, accumulate)
		return
	}
	acc := 0
	if accumulate {
		acc = 1
	}
	_ = c[(mr-1)*ldc+nr-1]
	if kc <= 0 {
		kernel6x16(0, nil, nil, ldb, &c[0], ldc, acc)
		return
	}
	_, _ = a[kc*mr-1], b[(kc-1)*ldb+nr-1]
	kernel6x16(kc, &a[0], &b[0], ldb, &c[0], ldc, acc)
}
