#include "textflag.h"

// func tapRowAVX2(dst *float32, n int, src *float32, offs *int, wts *float32, ntaps int, stride int, init float32, op int)
// dst[i] = init + Σ_t wts[t]·src[offs[t]+i*stride] (op 0) or the maximum
// of init and the taps, NaN if any tap is NaN (op 1), for i < n, n a
// multiple of 8, stride 1 or 2 (tapRow checks every load is inside src).
// Four vectors of eight outputs per pass over the taps, then one; the
// taps' offsets and weights are read once per pass. Stride 2 loads 16
// floats per vector and keeps the even ones: VSHUFPS takes elements 0 and
// 2 of each 128-bit half of both, VPERMPD puts the halves in order.

// LOAD2 leaves in y the even floats of the 16 at off(AX).
#define LOAD2(off, y) \
	VMOVUPS off(AX), y \
	VSHUFPS $0x88, off+32(AX), y, y \
	VPERMPD $0xD8, y, y

// MAXNAN folds x into the maximum acc and its NaNs into mask.
#define MAXNAN(x, acc, mask) \
	VMAXPS x, acc, acc \
	VCMPPS $3, x, x, Y12 \
	VORPS Y12, mask, mask

TEXT ·tapRowAVX2(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ offs+24(FP), R8
	MOVQ wts+32(FP), R9
	MOVQ ntaps+40(FP), R10
	MOVQ stride+48(FP), R11
	VBROADCASTSS init+56(FP), Y15
	MOVQ op+64(FP), R12
	MOVQ R11, R13
	SHLQ $5, R13 // bytes of src per vector of outputs
	CMPQ R12, $1
	JEQ max4

sum4:
	CMPQ CX, $32
	JLT sum1
	VMOVAPS Y15, Y0
	VMOVAPS Y15, Y1
	VMOVAPS Y15, Y2
	VMOVAPS Y15, Y3
	XORQ BX, BX

sum4tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Y14
	CMPQ R11, $2
	JEQ sum4s2
	VFMADD231PS (AX), Y14, Y0
	VFMADD231PS 32(AX), Y14, Y1
	VFMADD231PS 64(AX), Y14, Y2
	VFMADD231PS 96(AX), Y14, Y3
	JMP sum4next

sum4s2:
	LOAD2(0, Y4)
	LOAD2(64, Y5)
	LOAD2(128, Y6)
	LOAD2(192, Y7)
	VFMADD231PS Y4, Y14, Y0
	VFMADD231PS Y5, Y14, Y1
	VFMADD231PS Y6, Y14, Y2
	VFMADD231PS Y7, Y14, Y3

sum4next:
	INCQ BX
	CMPQ BX, R10
	JLT sum4tap
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, DI
	LEAQ (SI)(R13*4), SI
	SUBQ $32, CX
	JMP sum4

sum1:
	CMPQ CX, $8
	JLT done
	VMOVAPS Y15, Y0
	XORQ BX, BX

sum1tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Y14
	CMPQ R11, $2
	JEQ sum1s2
	VFMADD231PS (AX), Y14, Y0
	JMP sum1next

sum1s2:
	LOAD2(0, Y4)
	VFMADD231PS Y4, Y14, Y0

sum1next:
	INCQ BX
	CMPQ BX, R10
	JLT sum1tap
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ R13, SI
	SUBQ $8, CX
	JMP sum1

max4:
	CMPQ CX, $32
	JLT max1
	VMOVAPS Y15, Y0
	VMOVAPS Y15, Y1
	VMOVAPS Y15, Y2
	VMOVAPS Y15, Y3
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ BX, BX

max4tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	CMPQ R11, $2
	JEQ max4s2
	VMOVUPS (AX), Y4
	VMOVUPS 32(AX), Y5
	VMOVUPS 64(AX), Y6
	VMOVUPS 96(AX), Y7
	JMP max4fold

max4s2:
	LOAD2(0, Y4)
	LOAD2(64, Y5)
	LOAD2(128, Y6)
	LOAD2(192, Y7)

max4fold:
	MAXNAN(Y4, Y0, Y8)
	MAXNAN(Y5, Y1, Y9)
	MAXNAN(Y6, Y2, Y10)
	MAXNAN(Y7, Y3, Y11)
	INCQ BX
	CMPQ BX, R10
	JLT max4tap
	VORPS Y8, Y0, Y0
	VORPS Y9, Y1, Y1
	VORPS Y10, Y2, Y2
	VORPS Y11, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, DI
	LEAQ (SI)(R13*4), SI
	SUBQ $32, CX
	JMP max4

max1:
	CMPQ CX, $8
	JLT done
	VMOVAPS Y15, Y0
	VXORPS Y8, Y8, Y8
	XORQ BX, BX

max1tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	CMPQ R11, $2
	JEQ max1s2
	VMOVUPS (AX), Y4
	JMP max1fold

max1s2:
	LOAD2(0, Y4)

max1fold:
	MAXNAN(Y4, Y0, Y8)
	INCQ BX
	CMPQ BX, R10
	JLT max1tap
	VORPS Y8, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ R13, SI
	SUBQ $8, CX
	JMP max1

done:
	VZEROUPPER
	RET
