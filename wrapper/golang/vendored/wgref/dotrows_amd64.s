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

// func dotRows4x2(k8 int, a *float32, lda int, x1, x2, y1, y2 *float32, blocks int)
// dotRows8 for two vectors at once, four rows at a time: each step loads
// eight columns of the four rows once and multiplies them with both
// vectors (eight accumulators), so that A is read once for two results
// per row. k8 a positive multiple of 8, blocks >= 1.
TEXT ·dotRows4x2(SB), NOSPLIT, $0-64
	MOVQ k8+0(FP), CX
	SHLQ $2, CX            // the rows' bytes read
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R10
	SHLQ $2, R10
	MOVQ x1+24(FP), DI
	MOVQ x2+32(FP), R9
	MOVQ y1+40(FP), DX
	MOVQ y2+48(FP), R12
	MOVQ blocks+56(FP), R11
	LEAQ (R10)(R10*2), R13 // 3·lda bytes

block4:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   SI, R8
	XORQ   BX, BX             // byte offset into the rows and vectors

step4:
	VMOVUPS     (DI)(BX*1), Y8
	VMOVUPS     (R9)(BX*1), Y9
	VMOVUPS     (R8)(BX*1), Y10
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y10, Y9, Y4
	LEAQ        (R8)(R10*1), AX
	VMOVUPS     (AX)(BX*1), Y11
	VFMADD231PS Y11, Y8, Y1
	VFMADD231PS Y11, Y9, Y5
	LEAQ        (R8)(R10*2), AX
	VMOVUPS     (AX)(BX*1), Y12
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y12, Y9, Y6
	LEAQ        (R8)(R13*1), AX
	VMOVUPS     (AX)(BX*1), Y13
	VFMADD231PS Y13, Y8, Y3
	VFMADD231PS Y13, Y9, Y7
	ADDQ        $32, BX
	CMPQ        BX, CX
	JLT         step4

	// Each accumulator's lanes summed: rows 0..3 of x1 from Y0..Y3, of
	// x2 from Y4..Y7.
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVUPS      X0, (DX)
	VHADDPS      Y5, Y4, Y4
	VHADDPS      Y7, Y6, Y6
	VHADDPS      Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS       X5, X4, X4
	VMOVUPS      X4, (R12)

	LEAQ (SI)(R10*4), SI
	ADDQ $16, DX
	ADDQ $16, R12
	DECQ R11
	JNZ  block4
	VZEROUPPER
	RET
