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
	MOVQ CX, R12
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
	// A masked load even of no lanes costs: none when the rows are whole
	// vectors.
	TESTQ R12, R12
	JEQ next
	VMOVUPS.Z (SI)(BX*1), K1, Z0
	VMOVUPS Z0, K1, (DI)(BX*1)

next:
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ R10
	JNZ row
	VZEROUPPER
	RET

DATA evenIndex<>+0(SB)/4, $0
DATA evenIndex<>+4(SB)/4, $2
DATA evenIndex<>+8(SB)/4, $4
DATA evenIndex<>+12(SB)/4, $6
DATA evenIndex<>+16(SB)/4, $8
DATA evenIndex<>+20(SB)/4, $10
DATA evenIndex<>+24(SB)/4, $12
DATA evenIndex<>+28(SB)/4, $14
DATA evenIndex<>+32(SB)/4, $16
DATA evenIndex<>+36(SB)/4, $18
DATA evenIndex<>+40(SB)/4, $20
DATA evenIndex<>+44(SB)/4, $22
DATA evenIndex<>+48(SB)/4, $24
DATA evenIndex<>+52(SB)/4, $26
DATA evenIndex<>+56(SB)/4, $28
DATA evenIndex<>+60(SB)/4, $30
GLOBL evenIndex<>(SB), RODATA, $64

// func evensAVX512(dst, src *float32, n int, masks uint64)
// dst[i] = src[2i] for i < n, n a multiple of 16 (whole vectors read 32
// floats), then, when masks' low 16 bits are not zero, one more vector
// stored under them, its two loads under masks' next two 16 bits (which
// end at the last even float).
TEXT ·evensAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ masks+24(FP), DX
	VMOVUPS evenIndex<>(SB), Z12
	KMOVW DX, K1
	MOVQ DX, AX
	SHRQ $16, AX
	KMOVW AX, K2
	SHRQ $16, AX
	KMOVW AX, K3

evens:
	CMPQ CX, $16
	JLT evenstail
	VMOVUPS (SI), Z0
	VPERMT2PS 64(SI), Z12, Z0
	VMOVUPS Z0, (DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP evens

evenstail:
	TESTW DX, DX
	JEQ evensdone
	VMOVUPS.Z (SI), K2, Z0
	VMOVUPS.Z 64(SI), K3, Z1
	VPERMT2PS Z1, Z12, Z0
	VMOVUPS Z0, K1, (DI)

evensdone:
	VZEROUPPER
	RET

// func gatherPanelAVX512(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int32, masks *uint32)
// One im2col panel of 32 columns, rows rows: row p reads, for kernel
// position kp (counted from kp, wrapping at ksz onto the next channel,
// chanBytes further in src), the 32 floats at src + 4*offs[kp*32+c],
// those whose bit c of masks[kp] is clear read as 0 (two gathers of
// sixteen under the mask's halves).
TEXT ·gatherPanelAVX512(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ rows+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ chanBytes+24(FP), R8
	MOVQ kp+32(FP), DX
	MOVQ ksz+40(FP), R9
	MOVQ offs+48(FP), R10
	MOVQ masks+56(FP), R11

panelrow:
	TESTQ CX, CX
	JEQ paneldone
	MOVQ DX, AX
	SHLQ $7, AX
	VMOVDQU32 (R10)(AX*1), Z1
	VMOVDQU32 64(R10)(AX*1), Z2
	MOVL (R11)(DX*4), BX
	KMOVW BX, K1
	SHRL $16, BX
	KMOVW BX, K2
	VPXORD Z0, Z0, Z0
	VPXORD Z3, Z3, Z3
	VGATHERDPS (SI)(Z1*4), K1, Z0
	VGATHERDPS (SI)(Z2*4), K2, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z3, 64(DI)
	ADDQ $128, DI
	INCQ DX
	CMPQ DX, R9
	JLT samechan
	XORQ DX, DX
	ADDQ R8, SI

samechan:
	DECQ CX
	JMP panelrow

paneldone:
	VZEROUPPER
	RET

// func stripPanelAVX512(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int, masks *uint64, step, runs int)
// One im2col panel of 32 columns, rows rows, whose columns read at most
// runs runs of the input, each every step floats (1 or 2): row p reads,
// for kernel position kp (counted from kp, wrapping at ksz onto the next
// channel, chanBytes further in src), lane c from src + 4*(offs[runs*kp+s]
// + step*c) for the run s whose bit of masks[runs*kp+s] is set (lane c's
// bit for step 1, bit 2c for step 2), else 0. Masked loads touch nothing
// outside their bits.
TEXT ·stripPanelAVX512(SB), NOSPLIT, $0-80
	MOVQ dst+0(FP), DI
	MOVQ rows+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ chanBytes+24(FP), R8
	MOVQ kp+32(FP), DX
	MOVQ ksz+40(FP), R9
	MOVQ step+64(FP), R12
	VMOVUPS evenIndex<>(SB), Z12

striprow:
	TESTQ CX, CX
	JEQ stripdone
	// R10, R11: this kernel position's first run.
	MOVQ runs+72(FP), R14
	MOVQ DX, AX
	IMULQ R14, AX
	SHLQ $3, AX
	MOVQ offs+48(FP), R10
	ADDQ AX, R10
	MOVQ masks+56(FP), R11
	ADDQ AX, R11
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	CMPQ R12, $2
	JEQ strip2run

strip1run:
	MOVQ (R10), R13
	LEAQ (SI)(R13*4), R13
	MOVQ (R11), BX
	KMOVW BX, K1
	SHRQ $16, BX
	KMOVW BX, K2
	VMOVUPS (R13), K1, Z0
	VMOVUPS 64(R13), K2, Z1
	ADDQ $8, R10
	ADDQ $8, R11
	DECQ R14
	JNZ strip1run
	JMP stripstore

strip2run:
	MOVQ (R10), R13
	LEAQ (SI)(R13*4), R13
	MOVQ (R11), BX
	KMOVW BX, K1
	SHRQ $16, BX
	KMOVW BX, K2
	SHRQ $16, BX
	KMOVW BX, K3
	SHRQ $16, BX
	KMOVW BX, K4
	VMOVUPS (R13), K1, Z0
	VMOVUPS 64(R13), K2, Z1
	VMOVUPS 128(R13), K3, Z2
	VMOVUPS 192(R13), K4, Z3
	ADDQ $8, R10
	ADDQ $8, R11
	DECQ R14
	JNZ strip2run
	VPERMT2PS Z1, Z12, Z0
	VPERMT2PS Z3, Z12, Z2
	VMOVAPS Z2, Z1

stripstore:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ $128, DI
	INCQ DX
	CMPQ DX, R9
	JLT stripsame
	XORQ DX, DX
	ADDQ R8, SI

stripsame:
	DECQ CX
	JMP striprow

stripdone:
	VZEROUPPER
	RET
