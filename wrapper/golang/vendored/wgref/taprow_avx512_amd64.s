#include "textflag.h"

// evenLanes<> are the indices 0, 2, ..., 30: VPERMT2PS with them keeps the
// even floats of two vectors (stride 2).
DATA evenLanes<>+0(SB)/4, $0
DATA evenLanes<>+4(SB)/4, $2
DATA evenLanes<>+8(SB)/4, $4
DATA evenLanes<>+12(SB)/4, $6
DATA evenLanes<>+16(SB)/4, $8
DATA evenLanes<>+20(SB)/4, $10
DATA evenLanes<>+24(SB)/4, $12
DATA evenLanes<>+28(SB)/4, $14
DATA evenLanes<>+32(SB)/4, $16
DATA evenLanes<>+36(SB)/4, $18
DATA evenLanes<>+40(SB)/4, $20
DATA evenLanes<>+44(SB)/4, $22
DATA evenLanes<>+48(SB)/4, $24
DATA evenLanes<>+52(SB)/4, $26
DATA evenLanes<>+56(SB)/4, $28
DATA evenLanes<>+60(SB)/4, $30
GLOBL evenLanes<>(SB), RODATA, $64

// func tapRowSumAVX512(dst *float32, n int, src *float32, offs *int, wts *float32, ntaps int, stride int, init float32, masks uint64)
// dst[i] = init + Σ_t wts[t]·src[offs[t]+i*stride] for i < n, n a multiple
// of 16, stride 1 or 2; then, when masks' low 16 bits are not zero, one
// more vector of outputs under them (the tail), its loads under masks'
// next 16 bits (stride 1: the same) and, for stride 2, the 16 after, so
// that no load reaches past the last tap (tapRowWide sets the masks).
// Four vectors of sixteen outputs per pass over the taps, then one.
// Stride 2 loads 32 floats per vector and keeps the even ones.
TEXT ·tapRowSumAVX512(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ offs+24(FP), R8
	MOVQ wts+32(FP), R9
	MOVQ ntaps+40(FP), R10
	MOVQ stride+48(FP), R11
	VBROADCASTSS init+56(FP), Z15
	MOVQ masks+64(FP), DX
	KMOVW DX, K1
	MOVQ DX, AX
	SHRQ $16, AX
	KMOVW AX, K2
	SHRQ $16, AX
	KMOVW AX, K3
	CMPQ R11, $2
	JEQ s2x4

s1x4:
	CMPQ CX, $64
	JLT s1x1
	VMOVAPS Z15, Z0
	VMOVAPS Z15, Z1
	VMOVAPS Z15, Z2
	VMOVAPS Z15, Z3
	XORQ BX, BX

s1x4tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Z14
	VFMADD231PS (AX), Z14, Z0
	VFMADD231PS 64(AX), Z14, Z1
	VFMADD231PS 128(AX), Z14, Z2
	VFMADD231PS 192(AX), Z14, Z3
	INCQ BX
	CMPQ BX, R10
	JLT s1x4tap
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, DI
	ADDQ $256, SI
	SUBQ $64, CX
	JMP s1x4

s1x1:
	CMPQ CX, $16
	JLT s1tail
	VMOVAPS Z15, Z0
	XORQ BX, BX

s1x1tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Z14
	VFMADD231PS (AX), Z14, Z0
	INCQ BX
	CMPQ BX, R10
	JLT s1x1tap
	VMOVUPS Z0, (DI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, CX
	JMP s1x1

s1tail:
	TESTW DX, DX
	JEQ done
	VMOVAPS Z15, Z0
	XORQ BX, BX

s1tailtap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Z14
	VMOVUPS.Z (AX), K2, Z4
	VFMADD231PS Z4, Z14, Z0
	INCQ BX
	CMPQ BX, R10
	JLT s1tailtap
	VMOVUPS Z0, K1, (DI)
	JMP done

s2x4:
	VMOVUPS evenLanes<>(SB), Z12

s2x4loop:
	CMPQ CX, $64
	JLT s2x1
	VMOVAPS Z15, Z0
	VMOVAPS Z15, Z1
	VMOVAPS Z15, Z2
	VMOVAPS Z15, Z3
	XORQ BX, BX

s2x4tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Z14
	VMOVUPS (AX), Z4
	VMOVUPS 128(AX), Z5
	VMOVUPS 256(AX), Z6
	VMOVUPS 384(AX), Z7
	VPERMT2PS 64(AX), Z12, Z4
	VPERMT2PS 192(AX), Z12, Z5
	VPERMT2PS 320(AX), Z12, Z6
	VPERMT2PS 448(AX), Z12, Z7
	VFMADD231PS Z4, Z14, Z0
	VFMADD231PS Z5, Z14, Z1
	VFMADD231PS Z6, Z14, Z2
	VFMADD231PS Z7, Z14, Z3
	INCQ BX
	CMPQ BX, R10
	JLT s2x4tap
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, DI
	ADDQ $512, SI
	SUBQ $64, CX
	JMP s2x4loop

s2x1:
	CMPQ CX, $16
	JLT s2tail
	VMOVAPS Z15, Z0
	XORQ BX, BX

s2x1tap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Z14
	VMOVUPS (AX), Z4
	VPERMT2PS 64(AX), Z12, Z4
	VFMADD231PS Z4, Z14, Z0
	INCQ BX
	CMPQ BX, R10
	JLT s2x1tap
	VMOVUPS Z0, (DI)
	ADDQ $64, DI
	ADDQ $128, SI
	SUBQ $16, CX
	JMP s2x1

s2tail:
	TESTW DX, DX
	JEQ done
	VMOVAPS Z15, Z0
	XORQ BX, BX

s2tailtap:
	MOVQ (R8)(BX*8), AX
	LEAQ (SI)(AX*4), AX
	VBROADCASTSS (R9)(BX*4), Z14
	VMOVUPS.Z (AX), K2, Z4
	VMOVUPS.Z 64(AX), K3, Z5
	VPERMT2PS Z5, Z12, Z4
	VFMADD231PS Z4, Z14, Z0
	INCQ BX
	CMPQ BX, R10
	JLT s2tailtap
	VMOVUPS Z0, K1, (DI)

done:
	VZEROUPPER
	RET
