#include "textflag.h"

// Depthwise convolution sixteen channels at a time: a block's padded
// input and its output hold, per position, the sixteen channels' values
// as one vector (see conv_depthwise16.go).

// TRANSPOSE16 transposes the 16x16 floats of Z0-Z15 (row i in Zi) in
// place, through Z16-Z31: 32-bit then 64-bit interleaves within 128-bit
// lanes, then two rounds of lane shuffles.
#define TRANSPOSE16 \
	VUNPCKLPS Z1, Z0, Z16 \
	VUNPCKHPS Z1, Z0, Z17 \
	VUNPCKLPS Z3, Z2, Z18 \
	VUNPCKHPS Z3, Z2, Z19 \
	VUNPCKLPS Z5, Z4, Z20 \
	VUNPCKHPS Z5, Z4, Z21 \
	VUNPCKLPS Z7, Z6, Z22 \
	VUNPCKHPS Z7, Z6, Z23 \
	VUNPCKLPS Z9, Z8, Z24 \
	VUNPCKHPS Z9, Z8, Z25 \
	VUNPCKLPS Z11, Z10, Z26 \
	VUNPCKHPS Z11, Z10, Z27 \
	VUNPCKLPS Z13, Z12, Z28 \
	VUNPCKHPS Z13, Z12, Z29 \
	VUNPCKLPS Z15, Z14, Z30 \
	VUNPCKHPS Z15, Z14, Z31 \
	VUNPCKLPD Z18, Z16, Z0 \
	VUNPCKHPD Z18, Z16, Z1 \
	VUNPCKLPD Z19, Z17, Z2 \
	VUNPCKHPD Z19, Z17, Z3 \
	VUNPCKLPD Z22, Z20, Z4 \
	VUNPCKHPD Z22, Z20, Z5 \
	VUNPCKLPD Z23, Z21, Z6 \
	VUNPCKHPD Z23, Z21, Z7 \
	VUNPCKLPD Z26, Z24, Z8 \
	VUNPCKHPD Z26, Z24, Z9 \
	VUNPCKLPD Z27, Z25, Z10 \
	VUNPCKHPD Z27, Z25, Z11 \
	VUNPCKLPD Z30, Z28, Z12 \
	VUNPCKHPD Z30, Z28, Z13 \
	VUNPCKLPD Z31, Z29, Z14 \
	VUNPCKHPD Z31, Z29, Z15 \
	VSHUFF32X4 $0x88, Z4, Z0, Z16 \
	VSHUFF32X4 $0xdd, Z4, Z0, Z20 \
	VSHUFF32X4 $0x88, Z5, Z1, Z17 \
	VSHUFF32X4 $0xdd, Z5, Z1, Z21 \
	VSHUFF32X4 $0x88, Z6, Z2, Z18 \
	VSHUFF32X4 $0xdd, Z6, Z2, Z22 \
	VSHUFF32X4 $0x88, Z7, Z3, Z19 \
	VSHUFF32X4 $0xdd, Z7, Z3, Z23 \
	VSHUFF32X4 $0x88, Z12, Z8, Z24 \
	VSHUFF32X4 $0xdd, Z12, Z8, Z28 \
	VSHUFF32X4 $0x88, Z13, Z9, Z25 \
	VSHUFF32X4 $0xdd, Z13, Z9, Z29 \
	VSHUFF32X4 $0x88, Z14, Z10, Z26 \
	VSHUFF32X4 $0xdd, Z14, Z10, Z30 \
	VSHUFF32X4 $0x88, Z15, Z11, Z27 \
	VSHUFF32X4 $0xdd, Z15, Z11, Z31 \
	VSHUFF32X4 $0x88, Z24, Z16, Z0 \
	VSHUFF32X4 $0xdd, Z24, Z16, Z8 \
	VSHUFF32X4 $0x88, Z25, Z17, Z1 \
	VSHUFF32X4 $0xdd, Z25, Z17, Z9 \
	VSHUFF32X4 $0x88, Z26, Z18, Z2 \
	VSHUFF32X4 $0xdd, Z26, Z18, Z10 \
	VSHUFF32X4 $0x88, Z27, Z19, Z3 \
	VSHUFF32X4 $0xdd, Z27, Z19, Z11 \
	VSHUFF32X4 $0x88, Z28, Z20, Z4 \
	VSHUFF32X4 $0xdd, Z28, Z20, Z12 \
	VSHUFF32X4 $0x88, Z29, Z21, Z5 \
	VSHUFF32X4 $0xdd, Z29, Z21, Z13 \
	VSHUFF32X4 $0x88, Z30, Z22, Z6 \
	VSHUFF32X4 $0xdd, Z30, Z22, Z14 \
	VSHUFF32X4 $0x88, Z31, Z23, Z7 \
	VSHUFF32X4 $0xdd, Z31, Z23, Z15

// func pack16AVX512(dst, src *float32, chanStride, rowStride, rows, cols, dstRow int)
// dst[(y*dstRow + x)*16 + c] = src[c*chanStride + y*rowStride + x] for y <
// rows, x < cols, c < 16: sixteen positions of the sixteen channels a
// transpose. A row's last chunk loads its channels under a mask and
// stores all sixteen positions, zeros past cols: dst holds 16 positions
// more than the rows reach, and what follows a row is padding or the
// next row, written after. rows, cols > 0.
TEXT ·pack16AVX512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ chanStride+16(FP), R8
	SHLQ $2, R8
	MOVQ rowStride+24(FP), R9
	SHLQ $2, R9
	MOVQ rows+32(FP), R10
	MOVQ cols+40(FP), R11
	MOVQ dstRow+48(FP), R12
	SHLQ $6, R12
	// K1: the last chunk's lanes; R13: chunks a row.
	LEAQ -1(R11), CX
	ANDQ $15, CX
	INCQ CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	LEAQ 15(R11), R13
	SHRQ $4, R13

pack16row:
	MOVQ SI, AX
	MOVQ DI, DX
	MOVQ R13, CX

pack16chunk:
	KXNORW K0, K0, K2
	CMPQ CX, $1
	JNE pack16load
	KMOVW K1, K2

pack16load:
	MOVQ AX, BX
	VMOVUPS.Z (BX), K2, Z0
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z1
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z2
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z3
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z4
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z5
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z6
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z7
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z8
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z9
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z10
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z11
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z12
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z13
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z14
	ADDQ R8, BX
	VMOVUPS.Z (BX), K2, Z15
	TRANSPOSE16
	VMOVUPS Z0, 0(DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, 128(DX)
	VMOVUPS Z3, 192(DX)
	VMOVUPS Z4, 256(DX)
	VMOVUPS Z5, 320(DX)
	VMOVUPS Z6, 384(DX)
	VMOVUPS Z7, 448(DX)
	VMOVUPS Z8, 512(DX)
	VMOVUPS Z9, 576(DX)
	VMOVUPS Z10, 640(DX)
	VMOVUPS Z11, 704(DX)
	VMOVUPS Z12, 768(DX)
	VMOVUPS Z13, 832(DX)
	VMOVUPS Z14, 896(DX)
	VMOVUPS Z15, 960(DX)
	ADDQ $64, AX
	ADDQ $1024, DX
	DECQ CX
	JNZ pack16chunk
	ADDQ R9, SI
	ADDQ R12, DI
	DECQ R10
	JNZ pack16row
	VZEROUPPER
	RET

// func unpack16AVX512(dst *float32, chanStride int, src *float32, n int)
// dst[c*chanStride + p] = src[p*16 + c] for p < n, c < 16: sixteen
// positions a transpose, the last ones stored under a mask (src holds
// whole chunks of sixteen positions). n > 0.
TEXT ·unpack16AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ chanStride+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), R11
	LEAQ -1(R11), CX
	ANDQ $15, CX
	INCQ CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	LEAQ 15(R11), CX
	SHRQ $4, CX

unpack16chunk:
	VMOVUPS 0(SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	VMOVUPS 192(SI), Z3
	VMOVUPS 256(SI), Z4
	VMOVUPS 320(SI), Z5
	VMOVUPS 384(SI), Z6
	VMOVUPS 448(SI), Z7
	VMOVUPS 512(SI), Z8
	VMOVUPS 576(SI), Z9
	VMOVUPS 640(SI), Z10
	VMOVUPS 704(SI), Z11
	VMOVUPS 768(SI), Z12
	VMOVUPS 832(SI), Z13
	VMOVUPS 896(SI), Z14
	VMOVUPS 960(SI), Z15
	TRANSPOSE16
	KXNORW K0, K0, K2
	CMPQ CX, $1
	JNE unpack16store
	KMOVW K1, K2

unpack16store:
	MOVQ DI, BX
	VMOVUPS Z0, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z1, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z2, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z3, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z4, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z5, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z6, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z7, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z8, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z9, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z10, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z11, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z12, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z13, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z14, K2, (BX)
	ADDQ R8, BX
	VMOVUPS Z15, K2, (BX)
	ADDQ $1024, SI
	ADDQ $64, DI
	DECQ CX
	JNZ unpack16chunk
	VZEROUPPER
	RET

// func depthwise16AVX512(out, in, wts, bias *float32, oh, ow, rowStep, colStep int, offs *int, taps int)
// out[(oy*ow + ox)*16 + c] = bias[c] + Σ_t wts[t*16 + c]·in at byte
// oy*rowStep + ox*colStep + offs[t], lane c: each output position's
// sixteen channels as one vector. Four positions share each tap's
// weights where the stride is 1 or 2 (colStep 64 or 128), the rest go
// one by one. oh, ow, taps > 0.
TEXT ·depthwise16AVX512(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ wts+16(FP), R8
	MOVQ bias+24(FP), AX
	VMOVUPS (AX), Z31
	MOVQ oh+32(FP), R10
	MOVQ rowStep+48(FP), R12
	MOVQ colStep+56(FP), R9
	MOVQ offs+64(FP), R13
	MOVQ taps+72(FP), R14

dw16row:
	MOVQ SI, AX
	MOVQ ow+40(FP), BX
	CMPQ R9, $64
	JEQ dw16quad1
	CMPQ R9, $128
	JEQ dw16quad2
	JMP dw16one

dw16quad1:
	CMPQ BX, $4
	JLT dw16one
	VMOVAPS Z31, Z0
	VMOVAPS Z31, Z1
	VMOVAPS Z31, Z2
	VMOVAPS Z31, Z3
	XORQ CX, CX
	MOVQ R8, DX

dw16quad1tap:
	MOVQ (R13)(CX*8), R15
	VMOVUPS (DX), Z5
	VFMADD231PS 0(AX)(R15*1), Z5, Z0
	VFMADD231PS 64(AX)(R15*1), Z5, Z1
	VFMADD231PS 128(AX)(R15*1), Z5, Z2
	VFMADD231PS 192(AX)(R15*1), Z5, Z3
	ADDQ $64, DX
	INCQ CX
	CMPQ CX, R14
	JLT dw16quad1tap
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, DI
	ADDQ $256, AX
	SUBQ $4, BX
	JMP dw16quad1

dw16quad2:
	CMPQ BX, $4
	JLT dw16one
	VMOVAPS Z31, Z0
	VMOVAPS Z31, Z1
	VMOVAPS Z31, Z2
	VMOVAPS Z31, Z3
	XORQ CX, CX
	MOVQ R8, DX

dw16quad2tap:
	MOVQ (R13)(CX*8), R15
	VMOVUPS (DX), Z5
	VFMADD231PS 0(AX)(R15*1), Z5, Z0
	VFMADD231PS 128(AX)(R15*1), Z5, Z1
	VFMADD231PS 256(AX)(R15*1), Z5, Z2
	VFMADD231PS 384(AX)(R15*1), Z5, Z3
	ADDQ $64, DX
	INCQ CX
	CMPQ CX, R14
	JLT dw16quad2tap
	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, DI
	ADDQ $512, AX
	SUBQ $4, BX
	JMP dw16quad2

dw16one:
	TESTQ BX, BX
	JEQ dw16next
	VMOVAPS Z31, Z0
	XORQ CX, CX
	MOVQ R8, DX

dw16onetap:
	MOVQ (R13)(CX*8), R15
	VMOVUPS (DX), Z5
	VFMADD231PS (AX)(R15*1), Z5, Z0
	ADDQ $64, DX
	INCQ CX
	CMPQ CX, R14
	JLT dw16onetap
	VMOVUPS Z0, (DI)
	ADDQ $64, DI
	ADDQ R9, AX
	DECQ BX
	JMP dw16one

dw16next:
	ADDQ R12, SI
	DECQ R10
	JNZ dw16row
	VZEROUPPER
	RET
