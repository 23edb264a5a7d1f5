#include "textflag.h"

// func dotRows8(k8 int, a *float32, lda int, x, y *float32, blocks int)
// For each block of eight rows: eight accumulators over the k8 columns,
// eight at a time (one load of x, eight FMAs with the rows), then the
// accumulators' lanes summed into the block's eight results. k8 a
// positive multiple of 8, blocks >= 1.
TEXT ·dotRows8(SB), NOSPLIT, $0-48
	MOVQ k8+0(FP), CX
	SHRQ $3, CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R10
	SHLQ $2, R10
	MOVQ x+24(FP), DI
	MOVQ y+32(FP), DX
	MOVQ blocks+40(FP), R11
	LEAQ (R10)(R10*2), R13 // 3·lda bytes

block:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   SI, R8             // rows 0..3 of the block at R8, R8+lda, R8+2lda, R8+3lda
	LEAQ   (SI)(R10*4), R9    // rows 4..7
	MOVQ   DI, BX
	MOVQ   CX, R12

step:
	VMOVUPS     (BX), Y8
	VFMADD231PS (R8), Y8, Y0
	VFMADD231PS (R8)(R10*1), Y8, Y1
	VFMADD231PS (R8)(R10*2), Y8, Y2
	VFMADD231PS (R8)(R13*1), Y8, Y3
	VFMADD231PS (R9), Y8, Y4
	VFMADD231PS (R9)(R10*1), Y8, Y5
	VFMADD231PS (R9)(R10*2), Y8, Y6
	VFMADD231PS (R9)(R13*1), Y8, Y7
	ADDQ        $32, BX
	ADDQ        $32, R8
	ADDQ        $32, R9
	DECQ        R12
	JNZ         step

	// Sum each accumulator's lanes: pairwise adds within 128-bit halves,
	// then the two halves.
	VHADDPS    Y1, Y0, Y0
	VHADDPS    Y3, Y2, Y2
	VHADDPS    Y5, Y4, Y4
	VHADDPS    Y7, Y6, Y6
	VHADDPS    Y2, Y0, Y0
	VHADDPS    Y6, Y4, Y4
	VPERM2F128 $0x20, Y4, Y0, Y1
	VPERM2F128 $0x31, Y4, Y0, Y2
	VADDPS     Y2, Y1, Y1
	VMOVUPS    Y1, (DX)

	LEAQ (SI)(R10*8), SI
	ADDQ $32, DX
	DECQ R11
	JNZ  block
	VZEROUPPER
	RET
