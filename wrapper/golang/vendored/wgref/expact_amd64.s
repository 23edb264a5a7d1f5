#include "textflag.h"

// exp32's constants (vecmath.go), one float each, broadcast at the start.
DATA actSign<>+0(SB)/4, $0x80000000
GLOBL actSign<>(SB), RODATA, $4
DATA actExpMin<>+0(SB)/4, $0xc2d00000 // -104.0
GLOBL actExpMin<>(SB), RODATA, $4
DATA actLog2e<>+0(SB)/4, $0x3fb8aa3b // 1.4426950408889634
GLOBL actLog2e<>(SB), RODATA, $4
DATA actLn2Hi<>+0(SB)/4, $0x3f318000 // 0.693359375
GLOBL actLn2Hi<>(SB), RODATA, $4
DATA actLn2Lo<>+0(SB)/4, $0xb95e8083 // -0.00021219444
GLOBL actLn2Lo<>(SB), RODATA, $4
DATA actP0<>+0(SB)/4, $0x39506967 // 0.000198756915
GLOBL actP0<>(SB), RODATA, $4
DATA actP1<>+0(SB)/4, $0x3ab743ce // 0.0013981999507
GLOBL actP1<>(SB), RODATA, $4
DATA actP2<>+0(SB)/4, $0x3c088908 // 0.0083334519073
GLOBL actP2<>(SB), RODATA, $4
DATA actP3<>+0(SB)/4, $0x3d2aa9c1 // 0.041665795894
GLOBL actP3<>(SB), RODATA, $4
DATA actP4<>+0(SB)/4, $0x3e2aaaaa // 0.16666665459
GLOBL actP4<>(SB), RODATA, $4
DATA actP5<>+0(SB)/4, $0x3f000000 // 0.50000001201
GLOBL actP5<>(SB), RODATA, $4
DATA actOne<>+0(SB)/4, $0x3f800000 // 1.0
GLOBL actOne<>(SB), RODATA, $4

// func expActAVX512(dst, src *float32, n int, sigmoid bool)
// dst[i] = src[i]·Sigmoid(src[i]) (SiLU), or with sigmoid Sigmoid(src[i]),
// for i < n, n a multiple of 16, Sigmoid as sigmoid32 computes it: from
// t = e^-|x|, s = 1/(1+t), and t·s where x is negative, so that neither
// side cancels or overflows. e^-|x| is exp32's polynomial, with VSCALEFPS
// for the power of two; -|x| is clamped below as exp32 clamps (a NaN
// kept: MAXPS returns its second source, x, when either is NaN).
TEXT ·expActAVX512(SB), NOSPLIT, $0-25
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVBLZX sigmoid+24(FP), DX
	VBROADCASTSS actSign<>(SB), Z16
	VBROADCASTSS actExpMin<>(SB), Z17
	VBROADCASTSS actLog2e<>(SB), Z18
	VBROADCASTSS actLn2Hi<>(SB), Z19
	VBROADCASTSS actLn2Lo<>(SB), Z20
	VBROADCASTSS actP0<>(SB), Z21
	VBROADCASTSS actP1<>(SB), Z22
	VBROADCASTSS actP2<>(SB), Z23
	VBROADCASTSS actP3<>(SB), Z24
	VBROADCASTSS actP4<>(SB), Z25
	VBROADCASTSS actP5<>(SB), Z26
	VBROADCASTSS actOne<>(SB), Z27
	VPXORD Z28, Z28, Z28

loop:
	CMPQ CX, $16
	JLT done
	VMOVUPS (SI), Z0
	VPORD Z16, Z0, Z1
	VMAXPS Z1, Z17, Z1
	VMULPS Z18, Z1, Z2
	VRNDSCALEPS $0, Z2, Z2
	VFNMADD231PS Z19, Z2, Z1
	VFNMADD231PS Z20, Z2, Z1
	VMOVAPS Z21, Z3
	VFMADD213PS Z22, Z1, Z3
	VFMADD213PS Z23, Z1, Z3
	VFMADD213PS Z24, Z1, Z3
	VFMADD213PS Z25, Z1, Z3
	VFMADD213PS Z26, Z1, Z3
	VMULPS Z1, Z1, Z4
	VFMADD213PS Z1, Z4, Z3
	VADDPS Z27, Z3, Z3
	VSCALEFPS Z2, Z3, Z3
	VADDPS Z27, Z3, Z5
	VDIVPS Z5, Z27, Z5
	VCMPPS $1, Z28, Z0, K1
	VMULPS Z3, Z5, K1, Z5
	TESTQ DX, DX
	JNE store
	VMULPS Z0, Z5, Z5

store:
	VMOVUPS Z5, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop

done:
	VZEROUPPER
	RET
