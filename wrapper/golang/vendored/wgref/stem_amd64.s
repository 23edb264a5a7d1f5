#include "textflag.h"

// func kernel6x16Taps(kc int, a, b *float32, offs *int, c *float32, ldc int)
// C[0:6][0:16] = A·B over kc steps, kernel6x16 with B's step p read at
// byte offs[p] from b, as sixteen consecutive floats: the rows of a
// convolution's input that each kernel tap reads, found in place (conv
// _stem.go), not packed. a packs 6 floats per step; c is row-major with
// ldc floats between rows. Steps run in the order kernel6x16 runs them,
// each an FMA into the same accumulator: the same bits. kc > 0.
TEXT ·kernel6x16Taps(SB), NOSPLIT, $0-48
	MOVQ   kc+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   b+16(FP), DI
	MOVQ   offs+24(FP), R11
	MOVQ   c+32(FP), DX
	MOVQ   ldc+40(FP), R8
	SHLQ   $2, R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop:
	MOVQ         (R11), R12
	VMOVUPS      (DI)(R12*1), Y12
	VMOVUPS      32(DI)(R12*1), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS 4(SI), Y14
	VFMADD231PS  Y12, Y14, Y2
	VFMADD231PS  Y13, Y14, Y3
	VBROADCASTSS 8(SI), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS 12(SI), Y14
	VFMADD231PS  Y12, Y14, Y6
	VFMADD231PS  Y13, Y14, Y7
	VBROADCASTSS 16(SI), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS 20(SI), Y14
	VFMADD231PS  Y12, Y14, Y10
	VFMADD231PS  Y13, Y14, Y11
	ADDQ         $24, SI
	ADDQ         $8, R11
	DECQ         CX
	JNZ          loop

	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y2, (DX)
	VMOVUPS Y3, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ    R8, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	VZEROUPPER
	RET

// func deinterleaveAVX2(even, odd, src *float32, n int)
// even[j] = src[2j], odd[j] = src[2j+1] for j < n, n a positive multiple
// of 8: sixteen floats a step, their even and odd lanes gathered by
// SHUFPS within each 128-bit half and put in order by PERMPD.
TEXT ·deinterleaveAVX2(SB), NOSPLIT, $0-32
	MOVQ even+0(FP), DI
	MOVQ odd+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX
	SHRQ $3, CX

deint:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VSHUFPS $0x88, Y1, Y0, Y2
	VSHUFPS $0xDD, Y1, Y0, Y3
	VPERMPD $0xD8, Y2, Y2
	VPERMPD $0xD8, Y3, Y3
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, (DX)
	ADDQ    $64, SI
	ADDQ    $32, DI
	ADDQ    $32, DX
	DECQ    CX
	JNZ     deint
	VZEROUPPER
	RET
