// Shared by expact_amd64.s and biasact_amd64.s: Sigmoid as sigmoid32
// computes it, so that a fused SiLU or Sigmoid gives the unfused one's
// bits. The DATA are file-local (<>): each including file has its own.

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

// EXPACT_CONSTS broadcasts the constants into Z19-Z31, where SIGMOID
// reads them (Z31 zero).
#define EXPACT_CONSTS \
	VBROADCASTSS actSign<>(SB), Z19 \
	VBROADCASTSS actExpMin<>(SB), Z20 \
	VBROADCASTSS actLog2e<>(SB), Z21 \
	VBROADCASTSS actLn2Hi<>(SB), Z22 \
	VBROADCASTSS actLn2Lo<>(SB), Z23 \
	VBROADCASTSS actP0<>(SB), Z24 \
	VBROADCASTSS actP1<>(SB), Z25 \
	VBROADCASTSS actP2<>(SB), Z26 \
	VBROADCASTSS actP3<>(SB), Z27 \
	VBROADCASTSS actP4<>(SB), Z28 \
	VBROADCASTSS actP5<>(SB), Z29 \
	VBROADCASTSS actOne<>(SB), Z30 \
	VPXORD Z31, Z31, Z31

// SIGMOID sets Z5 = Sigmoid(Z0), using Z1-Z4 and K2: t = e^-|x|, s =
// 1/(1+t), and t·s where x is negative, so that neither side cancels or
// overflows. e^-|x| is exp32's polynomial, with VSCALEFPS for the power
// of two; -|x| is clamped below as exp32 clamps (a NaN kept: MAXPS
// returns its second source, x, when either is NaN).
#define SIGMOID \
	VPORD Z19, Z0, Z1 \
	VMAXPS Z1, Z20, Z1 \
	VMULPS Z21, Z1, Z2 \
	VRNDSCALEPS $0, Z2, Z2 \
	VFNMADD231PS Z22, Z2, Z1 \
	VFNMADD231PS Z23, Z2, Z1 \
	VMOVAPS Z24, Z3 \
	VFMADD213PS Z25, Z1, Z3 \
	VFMADD213PS Z26, Z1, Z3 \
	VFMADD213PS Z27, Z1, Z3 \
	VFMADD213PS Z28, Z1, Z3 \
	VFMADD213PS Z29, Z1, Z3 \
	VMULPS Z1, Z1, Z4 \
	VFMADD213PS Z1, Z4, Z3 \
	VADDPS Z30, Z3, Z3 \
	VSCALEFPS Z2, Z3, Z3 \
	VADDPS Z30, Z3, Z5 \
	VDIVPS Z5, Z30, Z5 \
	VCMPPS $1, Z31, Z0, K2 \
	VMULPS Z3, Z5, K2, Z5
