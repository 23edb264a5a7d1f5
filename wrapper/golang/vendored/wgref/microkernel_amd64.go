package wgref

import (
	"os"
	"strings"
)

//go:noescape
func kernel6x16(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

//go:noescape
func kernel12x32(kc int, a, b *float32, ldb int, c *float32, ldc int, accumulate int)

func cpuidex(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax uint32)

// The CPU's and the OS's support for the assembly kernels: the
// instructions, and the register state the OS saves on a context switch
// (XCR0: XMM and YMM for AVX2, and opmask and both halves of ZMM for
// AVX-512).
var haveAVX2FMA, haveAVX512 = func() (avx2, avx512 bool) {
	_, _, ecx1, _ := cpuidex(1, 0)
	const osxsave, avx, fma = 1 << 27, 1 << 28, 1 << 12
	if ecx1&osxsave == 0 || ecx1&avx == 0 || ecx1&fma == 0 {
		return false, false
	}
	xcr0 := xgetbv()
	const ymmState, zmmState = 1<<1 | 1<<2, 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	_, ebx7, _, _ := cpuidex(7, 0)
	avx2 = xcr0&ymmState == ymmState && ebx7&(1<<5) != 0 && !cpuOff("avx2")
	avx512 = avx2 && xcr0&zmmState == zmmState && ebx7&(1<<16) != 0 && !cpuOff("avx512f")
	return avx2, avx512
}()

// cpuOff reports whether GODEBUG turns the CPU feature off, as it does for
// the Go runtime's own use of it (cpu.avx512f=off, cpu.avx2=off or
// cpu.all=off): to run, and time, the kernels of a lesser CPU.
func cpuOff(feature string) bool {
	off := false
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		switch kv {
		case "cpu." + feature + "=off", "cpu.all=off":
			off = true
		case "cpu." + feature + "=on":
			off = false
		}
	}
	return off
}

// avx2Path is kernel6x16: 12 YMM accumulators.
var avx2Path = kernelPath{kernelAVX2, "avx2", 6, 16}

// avx512Path is kernel12x32: 24 ZMM accumulators. In L1 on Zen 5,
// 12×32, 8×48 and 6×64 all ran at about the FMA peak (14×32 and
// embedded-broadcast variants a few percent below); 12×32 is taken because
// 12 and 32 are multiples of the AVX2 block, which keeps one scratch rule
// for both, and 32 columns waste less on small images (7×7 = 49 positions
// make 64 columns, against 96 for 8×48).
var avx512Path = kernelPath{kernelAVX512, "avx512", 12, 32}

// run is the path's micro-kernel (see microKernel), after checking the
// bounds the assembly reads and writes. Direct calls, so that escape
// analysis sees the kernels keep no pointer.
func (p kernelPath) run(kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	if p.id == kernelGo {
		microKernelGo(p.mr, p.nr, kc, a, b, ldb, c, ldc, accumulate)
		return
	}
	acc := 0
	if accumulate {
		acc = 1
	}
	_ = c[(p.mr-1)*ldc+p.nr-1]
	var ap, bp *float32
	if kc > 0 {
		_, _ = a[kc*p.mr-1], b[(kc-1)*ldb+p.nr-1]
		ap, bp = &a[0], &b[0]
	} else {
		kc = 0
	}
	if p.id == kernelAVX512 {
		kernel12x32(kc, ap, bp, ldb, &c[0], ldc, acc)
	} else {
		kernel6x16(kc, ap, bp, ldb, &c[0], ldc, acc)
	}
}

// bestKernelPath is the widest kernel this CPU runs.
func bestKernelPath() kernelPath {
	switch {
	case haveAVX512:
		return avx512Path
	case haveAVX2FMA:
		return avx2Path
	}
	return goPath
}

// kernelPaths are the paths this CPU can run, for tests.
func kernelPaths() []kernelPath {
	paths := []kernelPath{goPath}
	if haveAVX2FMA {
		paths = append(paths, avx2Path)
	}
	if haveAVX512 {
		paths = append(paths, avx512Path)
	}
	return paths
}
