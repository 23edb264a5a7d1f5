#include "textflag.h"

// func gemv64(k int, x, b *float32, ldb int, y *float32, blocks int)
// For each block of 64 columns: eight accumulators, and for each of the k
// steps one broadcast x[p] times eight vectors of row p of b (ldb floats
// apart). k >= 1, blocks >= 1.
TEXT ·gemv64(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R10
	SHLQ $2, R10
	MOVQ y+32(FP), DX
	MOVQ blocks+40(FP), R11

block64:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   SI, R8
	MOVQ   DI, R9
	MOVQ   CX, R12

step64:
	VBROADCASTSS (R8), Y8
	VFMADD231PS  (R9), Y8, Y0
	VFMADD231PS  32(R9), Y8, Y1
	VFMADD231PS  64(R9), Y8, Y2
	VFMADD231PS  96(R9), Y8, Y3
	VFMADD231PS  128(R9), Y8, Y4
	VFMADD231PS  160(R9), Y8, Y5
	VFMADD231PS  192(R9), Y8, Y6
	VFMADD231PS  224(R9), Y8, Y7
	ADDQ         $4, R8
	ADDQ         R10, R9
	DECQ         R12
	JNZ          step64

	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VMOVUPS Y4, 128(DX)
	VMOVUPS Y5, 160(DX)
	VMOVUPS Y6, 192(DX)
	VMOVUPS Y7, 224(DX)
	ADDQ    $256, DI
	ADDQ    $256, DX
	DECQ    R11
	JNZ     block64
	VZEROUPPER
	RET

// func gemv8(k int, x, b *float32, ldb int, y *float32, blocks int)
// gemv64 over blocks of 8 columns. k >= 1, blocks >= 1.
TEXT ·gemv8(SB), NOSPLIT, $0-48
	MOVQ k+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R10
	SHLQ $2, R10
	MOVQ y+32(FP), DX
	MOVQ blocks+40(FP), R11

block8:
	VXORPS Y0, Y0, Y0
	MOVQ   SI, R8
	MOVQ   DI, R9
	MOVQ   CX, R12

step8:
	VBROADCASTSS (R8), Y8
	VFMADD231PS  (R9), Y8, Y0
	ADDQ         $4, R8
	ADDQ         R10, R9
	DECQ         R12
	JNZ          step8

	VMOVUPS Y0, (DX)
	ADDQ    $32, DI
	ADDQ    $32, DX
	DECQ    R11
	JNZ     block8
	VZEROUPPER
	RET
