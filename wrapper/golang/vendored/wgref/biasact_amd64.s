#include "textflag.h"
#include "expact_amd64.h"

// HARDSIGMOID sets Z0 = max(0, min(1, lo·x + hi)) (lo, hi: alpha, beta
// in Z14, Z15), HARDSWISH Z0 = x·max(0, min(1, x/6 + 1/2)), using Z2:
// the instructions of vec_amd64.s's AVX2 macros, in the same order, so
// that a fused activation gives the bits the unfused one gives.
#define HARDSIGMOID \
	VFMADD213PS Z15, Z14, Z0 \
	VMINPS      Z0, Z18, Z0 \
	VMAXPS      Z0, Z13, Z0

#define HARDSWISH \
	VMOVAPS     Z0, Z2 \
	VFMADD213PS Z17, Z16, Z0 \
	VMINPS      Z0, Z18, Z0 \
	VMAXPS      Z0, Z13, Z0 \
	VMULPS      Z2, Z0, Z0

// func biasClampAVX512(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)
// Each of rows rows of cols floats of c (ldc floats apart): x + bias[i*
// biasStride] (+ sum's element, laid out as c, when sum is not nil), then
// mode 1 Relu (max with 0: a NaN stays, as in reluAVX2), mode 2 Clip
// to [lo, hi] (a NaN kept, as clipAVX2), mode 3 HardSigmoid (alpha lo,
// beta hi), mode 4 HardSwish, mode 5 SiLU, mode 6 Sigmoid (as
// expActAVX512), mode 0 nothing. Whole vectors of sixteen,
// then the rest of a row under a mask. rows > 0, cols > 0.
TEXT ·biasClampAVX512(SB), NOSPLIT, $0-72
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ rows+16(FP), R10
	MOVQ cols+24(FP), R11
	MOVQ bias+32(FP), R9
	MOVQ biasStride+40(FP), R12
	SHLQ $2, R12
	MOVQ sum+48(FP), SI
	MOVQ mode+56(FP), DX
	VBROADCASTSS lo+64(FP), Z14
	VBROADCASTSS hi+68(FP), Z15
	VPXORD Z13, Z13, Z13
	// HardSwish's constants, as vec_amd64.s's HARDSWISH has them: 1/6,
	// 1/2 and 1.
	MOVL $0x3e2aaaab, AX
	VPBROADCASTD AX, Z16
	MOVL $0x3f000000, AX
	VPBROADCASTD AX, Z17
	MOVL $0x3f800000, AX
	VPBROADCASTD AX, Z18
	EXPACT_CONSTS
	MOVQ R11, CX
	ANDQ $15, CX
	MOVQ CX, R13
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	SHRQ $4, R11

row:
	VBROADCASTSS (R9), Z12
	XORQ BX, BX
	MOVQ R11, CX

vec:
	TESTQ CX, CX
	JEQ tail
	VADDPS (DI)(BX*1), Z12, Z0
	TESTQ SI, SI
	JEQ vact
	VADDPS (SI)(BX*1), Z0, Z0

vact:
	CMPQ DX, $1
	JLT vstore
	JEQ vrelu
	CMPQ DX, $3
	JLT vclip
	JEQ vhsig
	CMPQ DX, $5
	JLT vhswish
	JEQ vsilu
	SIGMOID
	VMOVAPS Z5, Z0
	JMP vstore

vsilu:
	SIGMOID
	VMULPS Z0, Z5, Z0
	JMP vstore

vhswish:
	HARDSWISH
	JMP vstore

vhsig:
	HARDSIGMOID
	JMP vstore

vclip:
	VMAXPS Z0, Z14, Z0
	VMINPS Z0, Z15, Z0
	JMP vstore

vrelu:
	VMAXPS Z0, Z13, Z0
	VADDPS Z13, Z0, Z0

vstore:
	VMOVUPS Z0, (DI)(BX*1)
	ADDQ $64, BX
	DECQ CX
	JMP vec

tail:
	// Under K1: no load or store past the row.
	TESTQ R13, R13
	JEQ rowdone
	VMOVUPS.Z (DI)(BX*1), K1, Z0
	VADDPS Z12, Z0, Z0
	TESTQ SI, SI
	JEQ tact
	VMOVUPS.Z (SI)(BX*1), K1, Z1
	VADDPS Z1, Z0, Z0

tact:
	CMPQ DX, $1
	JLT tstore
	JEQ trelu
	CMPQ DX, $3
	JLT tclip
	JEQ thsig
	CMPQ DX, $5
	JLT thswish
	JEQ tsilu
	SIGMOID
	VMOVAPS Z5, Z0
	JMP tstore

tsilu:
	SIGMOID
	VMULPS Z0, Z5, Z0
	JMP tstore

thswish:
	HARDSWISH
	JMP tstore

thsig:
	HARDSIGMOID
	JMP tstore

tclip:
	VMAXPS Z0, Z14, Z0
	VMINPS Z0, Z15, Z0
	JMP tstore

trelu:
	VMAXPS Z0, Z13, Z0
	VADDPS Z13, Z0, Z0

tstore:
	VMOVUPS Z0, K1, (DI)(BX*1)

rowdone:
	ADDQ R8, DI
	TESTQ SI, SI
	JEQ nextrow
	ADDQ R8, SI

nextrow:
	ADDQ R12, R9
	DECQ R10
	JNZ row
	VZEROUPPER
	RET
