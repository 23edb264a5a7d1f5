#include "textflag.h"

// func biasClampAVX512(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)
// Each of rows rows of cols floats of c (ldc floats apart): x + bias[i*
// biasStride] (+ sum's element, laid out as c, when sum is not nil), then
// mode 1 Relu (max with 0: a NaN becomes 0, as reluAVX2) or mode 2 Clip
// to [lo, hi] (a NaN kept, as clipAVX2), mode 0 nothing. Whole vectors of
// sixteen, then the rest of a row under a mask. rows > 0, cols > 0.
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
	VMAXPS Z0, Z14, Z0
	VMINPS Z0, Z15, Z0
	JMP vstore

vrelu:
	VMAXPS Z13, Z0, Z0

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
	VMAXPS Z0, Z14, Z0
	VMINPS Z0, Z15, Z0
	JMP tstore

trelu:
	VMAXPS Z13, Z0, Z0

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
