#include "textflag.h"

// func planeRowsAVX512(dst *float32, dstStride int, src *float32, srcStride int, rows, cols int)
// Each row: whole vectors of sixteen floats, then the rest under a mask
// (which loads and stores nothing past the row). rows and cols > 0.
TEXT ·planeRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ dstStride+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ srcStride+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ cols+40(FP), R11
	SHLQ $2, R8
	SHLQ $2, R9
	MOVQ R11, CX
	ANDQ $15, CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	SHRQ $4, R11

row:
	XORQ BX, BX
	MOVQ R11, DX

vec:
	TESTQ DX, DX
	JEQ tail
	VMOVUPS (SI)(BX*1), Z0
	VMOVUPS Z0, (DI)(BX*1)
	ADDQ $64, BX
	DECQ DX
	JMP vec

tail:
	VMOVUPS.Z (SI)(BX*1), K1, Z0
	VMOVUPS Z0, K1, (DI)(BX*1)
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ R10
	JNZ row
	VZEROUPPER
	RET
