#include "textflag.h"

// AVX2 forms of layer normalization's row passes (layernormrow.go has the
// Go forms they are held to, bit for bit: the same operations in the same
// order, none fused).

// func sumSquaresAVX2(row *float32, n int, lanes *[16]float64)
// n a multiple of 8: lanes[l] the sum of the elements i%8 == l in
// float64, lanes[8+l] of their squares.
TEXT ·sumSquaresAVX2(SB), NOSPLIT, $0-24
	MOVQ   row+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   lanes+16(FP), DI
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

sqloop:
	CMPQ      CX, $8
	JLT       sqdone
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	VADDPD    Y0, Y4, Y4
	VADDPD    Y1, Y5, Y5
	VMULPD    Y0, Y0, Y0
	VMULPD    Y1, Y1, Y1
	VADDPD    Y0, Y6, Y6
	VADDPD    Y1, Y7, Y7
	ADDQ      $32, SI
	SUBQ      $8, CX
	JMP       sqloop

sqdone:
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	VMOVUPD Y6, 64(DI)
	VMOVUPD Y7, 96(DI)
	VZEROUPPER
	RET

// func layerNormApplyAVX2(dst, x, scale, shift *float32, n int, mean, inv float32)
// dst[i] = ((x[i] - mean)·inv)·scale[i] + shift[i], without the add when
// shift is nil.
TEXT ·layerNormApplyAVX2(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         scale+16(FP), DX
	MOVQ         shift+24(FP), BX
	MOVQ         n+32(FP), CX
	VBROADCASTSS mean+40(FP), Y14
	VBROADCASTSS inv+44(FP), Y15
	TESTQ        BX, BX
	JEQ          plain8

bias8:
	CMPQ    CX, $8
	JLT     bias1
	VMOVUPS (SI), Y0
	VSUBPS  Y14, Y0, Y0
	VMULPS  Y15, Y0, Y0
	VMULPS  (DX), Y0, Y0
	VADDPS  (BX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, BX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     bias8

bias1:
	TESTQ  CX, CX
	JEQ    lndone
	VMOVSS (SI), X0
	VSUBSS X14, X0, X0
	VMULSS X15, X0, X0
	VMULSS (DX), X0, X0
	VADDSS (BX), X0, X0
	VMOVSS X0, (DI)
	ADDQ   $4, SI
	ADDQ   $4, DX
	ADDQ   $4, BX
	ADDQ   $4, DI
	DECQ   CX
	JMP    bias1

plain8:
	CMPQ    CX, $8
	JLT     plain1
	VMOVUPS (SI), Y0
	VSUBPS  Y14, Y0, Y0
	VMULPS  Y15, Y0, Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     plain8

plain1:
	TESTQ  CX, CX
	JEQ    lndone
	VMOVSS (SI), X0
	VSUBSS X14, X0, X0
	VMULSS X15, X0, X0
	VMULSS (DX), X0, X0
	VMOVSS X0, (DI)
	ADDQ   $4, SI
	ADDQ   $4, DX
	ADDQ   $4, DI
	DECQ   CX
	JMP    plain1

lndone:
	VZEROUPPER
	RET
