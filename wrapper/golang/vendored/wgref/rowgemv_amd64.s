#include "textflag.h"

// func rowTimesBAVX2(c *float32, n int, a *float32, acs int, b *float32, ldb int, k int, accumulate int)
// c[j] (+)= Σ_p a[p·acs]·b[p·ldb+j] for j < n, p < k; n a positive
// multiple of 8, k >= 1. Columns in blocks of 32 (then 8), each held in
// registers over all of k: even steps add into one set of accumulators,
// odd steps into another, so that eight FMA chains run at once.
TEXT ·rowTimesBAVX2(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ a+16(FP), SI
	MOVQ acs+24(FP), R8
	SHLQ $2, R8
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R9
	SHLQ $2, R9
	MOVQ k+48(FP), R10
	MOVQ accumulate+56(FP), R11

block32:
	CMPQ   CX, $32
	JLT    block8
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ  R11, R11
	JZ     zero32
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	JMP     start32

zero32:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

start32:
	MOVQ SI, R12 // A's step p
	MOVQ DX, R13 // B's row p at this block's columns
	MOVQ R10, R14

pairs32:
	CMPQ         R14, $2
	JLT          last32
	VBROADCASTSS (R12), Y8
	ADDQ         R8, R12
	VFMADD231PS  (R13), Y8, Y0
	VFMADD231PS  32(R13), Y8, Y1
	VFMADD231PS  64(R13), Y8, Y2
	VFMADD231PS  96(R13), Y8, Y3
	ADDQ         R9, R13
	VBROADCASTSS (R12), Y9
	ADDQ         R8, R12
	VFMADD231PS  (R13), Y9, Y4
	VFMADD231PS  32(R13), Y9, Y5
	VFMADD231PS  64(R13), Y9, Y6
	VFMADD231PS  96(R13), Y9, Y7
	ADDQ         R9, R13
	SUBQ         $2, R14
	JMP          pairs32

last32:
	TESTQ        R14, R14
	JZ           store32
	VBROADCASTSS (R12), Y8
	VFMADD231PS  (R13), Y8, Y0
	VFMADD231PS  32(R13), Y8, Y1
	VFMADD231PS  64(R13), Y8, Y2
	VFMADD231PS  96(R13), Y8, Y3

store32:
	VADDPS  Y4, Y0, Y0
	VADDPS  Y5, Y1, Y1
	VADDPS  Y6, Y2, Y2
	VADDPS  Y7, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, DX
	SUBQ    $32, CX
	JMP     block32

block8:
	CMPQ    CX, $8
	JLT     done
	VXORPS  Y4, Y4, Y4
	VXORPS  Y0, Y0, Y0
	TESTQ   R11, R11
	JZ      start8
	VMOVUPS (DI), Y0

start8:
	MOVQ SI, R12
	MOVQ DX, R13
	MOVQ R10, R14

pairs8:
	CMPQ         R14, $2
	JLT          last8
	VBROADCASTSS (R12), Y8
	ADDQ         R8, R12
	VFMADD231PS  (R13), Y8, Y0
	ADDQ         R9, R13
	VBROADCASTSS (R12), Y9
	ADDQ         R8, R12
	VFMADD231PS  (R13), Y9, Y4
	ADDQ         R9, R13
	SUBQ         $2, R14
	JMP          pairs8

last8:
	TESTQ        R14, R14
	JZ           store8
	VBROADCASTSS (R12), Y8
	VFMADD231PS  (R13), Y8, Y0

store8:
	VADDPS  Y4, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     block8

done:
	VZEROUPPER
	RET

// func rows4TimesBAVX2(c *float32, c1, c2, c3 int, n int, a *float32, a1, a2, a3 int, acs int, b *float32, ldb int, k int, accumulate int)
// Four rows at once: row r of C (at c + cr floats, c0 = 0) (+)= Σ_p
// A_r[p·acs]·b[p·ldb+j] for j < n (A_r at a + ar floats), n a positive
// multiple of 8, k >= 1. Each load of B serves the four rows: columns in
// blocks of 16 (eight accumulators), then 8. A caller with fewer rows
// repeats row 0 (the same A and C offsets), which computes and stores the
// same values.
TEXT ·rows4TimesBAVX2(SB), NOSPLIT, $0-112
	MOVQ c+0(FP), DI
	MOVQ n+32(FP), CX
	MOVQ a+40(FP), SI
	MOVQ a1+48(FP), BX
	SHLQ $2, BX
	MOVQ a2+56(FP), R11
	SHLQ $2, R11
	MOVQ a3+64(FP), R12
	SHLQ $2, R12
	MOVQ acs+72(FP), R8
	SHLQ $2, R8
	MOVQ b+80(FP), DX
	MOVQ ldb+88(FP), R9
	SHLQ $2, R9
	MOVQ k+96(FP), R10

block16:
	CMPQ   CX, $16
	JLT    block8
	MOVQ   accumulate+104(FP), AX
	TESTQ  AX, AX
	JZ     zero16
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	MOVQ    c1+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS (DI)(AX*1), Y2
	VMOVUPS 32(DI)(AX*1), Y3
	MOVQ    c2+16(FP), AX
	SHLQ    $2, AX
	VMOVUPS (DI)(AX*1), Y4
	VMOVUPS 32(DI)(AX*1), Y5
	MOVQ    c3+24(FP), AX
	SHLQ    $2, AX
	VMOVUPS (DI)(AX*1), Y6
	VMOVUPS 32(DI)(AX*1), Y7
	JMP     start16

zero16:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

start16:
	MOVQ SI, R14 // A's step p, row 0
	MOVQ DX, R13 // B's row p at this block's columns
	MOVQ R10, AX

loop16:
	VMOVUPS      (R13), Y8
	VMOVUPS      32(R13), Y9
	VBROADCASTSS (R14), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (R14)(BX*1), Y10
	VFMADD231PS  Y8, Y10, Y2
	VFMADD231PS  Y9, Y10, Y3
	VBROADCASTSS (R14)(R11*1), Y10
	VFMADD231PS  Y8, Y10, Y4
	VFMADD231PS  Y9, Y10, Y5
	VBROADCASTSS (R14)(R12*1), Y10
	VFMADD231PS  Y8, Y10, Y6
	VFMADD231PS  Y9, Y10, Y7
	ADDQ         R8, R14
	ADDQ         R9, R13
	DECQ         AX
	JNZ          loop16

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	MOVQ    c1+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y2, (DI)(AX*1)
	VMOVUPS Y3, 32(DI)(AX*1)
	MOVQ    c2+16(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y4, (DI)(AX*1)
	VMOVUPS Y5, 32(DI)(AX*1)
	MOVQ    c3+24(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y6, (DI)(AX*1)
	VMOVUPS Y7, 32(DI)(AX*1)
	ADDQ    $64, DI
	ADDQ    $64, DX
	SUBQ    $16, CX
	JMP     block16

block8:
	CMPQ   CX, $8
	JLT    done4
	MOVQ   accumulate+104(FP), AX
	TESTQ  AX, AX
	JZ     zero8
	VMOVUPS (DI), Y0
	MOVQ    c1+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS (DI)(AX*1), Y2
	MOVQ    c2+16(FP), AX
	SHLQ    $2, AX
	VMOVUPS (DI)(AX*1), Y4
	MOVQ    c3+24(FP), AX
	SHLQ    $2, AX
	VMOVUPS (DI)(AX*1), Y6
	JMP     start8

zero8:
	VXORPS Y0, Y0, Y0
	VXORPS Y2, Y2, Y2
	VXORPS Y4, Y4, Y4
	VXORPS Y6, Y6, Y6

start8:
	MOVQ SI, R14
	MOVQ DX, R13
	MOVQ R10, AX

loop8:
	VMOVUPS      (R13), Y8
	VBROADCASTSS (R14), Y10
	VFMADD231PS  Y8, Y10, Y0
	VBROADCASTSS (R14)(BX*1), Y10
	VFMADD231PS  Y8, Y10, Y2
	VBROADCASTSS (R14)(R11*1), Y10
	VFMADD231PS  Y8, Y10, Y4
	VBROADCASTSS (R14)(R12*1), Y10
	VFMADD231PS  Y8, Y10, Y6
	ADDQ         R8, R14
	ADDQ         R9, R13
	DECQ         AX
	JNZ          loop8

	VMOVUPS Y0, (DI)
	MOVQ    c1+8(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y2, (DI)(AX*1)
	MOVQ    c2+16(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y4, (DI)(AX*1)
	MOVQ    c3+24(FP), AX
	SHLQ    $2, AX
	VMOVUPS Y6, (DI)(AX*1)
	ADDQ    $32, DI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     block8

done4:
	VZEROUPPER
	RET
