#include "textflag.h"

// The AVX2 path's kernels for a tile's last one to four columns: the six
// floats of a packed A step fill one vector (lanes 0-5, loaded under a
// mask so that nothing past the panel is read), and each column's B value
// is broadcast onto it. A column's sum then takes one FMA a step instead
// of the sixteen-column tile's twelve, in independent chains over
// alternate steps so that the FMA's latency is hidden. out[8j+i] is row i
// of column j.

DATA sixLanes<>+0(SB)/4, $-1
DATA sixLanes<>+4(SB)/4, $-1
DATA sixLanes<>+8(SB)/4, $-1
DATA sixLanes<>+12(SB)/4, $-1
DATA sixLanes<>+16(SB)/4, $-1
DATA sixLanes<>+20(SB)/4, $-1
DATA sixLanes<>+24(SB)/4, $0
DATA sixLanes<>+28(SB)/4, $0
GLOBL sixLanes<>(SB), RODATA, $32

// func kernel6x1(kc int, a, b *float32, ldb int, out *float32)
// One column, steps in four chains. kc > 0.
TEXT ·kernel6x1(SB), NOSPLIT, $0-40
	MOVQ    kc+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    b+16(FP), DI
	MOVQ    ldb+24(FP), R10
	SHLQ    $2, R10
	MOVQ    out+32(FP), DX
	VMOVDQU sixLanes<>(SB), Y15
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3

c1by4:
	CMPQ         CX, $4
	JLT          c1by1
	VMASKMOVPS   (SI), Y15, Y4
	VBROADCASTSS (DI), Y8
	VFMADD231PS  Y4, Y8, Y0
	VMASKMOVPS   24(SI), Y15, Y5
	VBROADCASTSS (DI)(R10*1), Y9
	VFMADD231PS  Y5, Y9, Y1
	LEAQ         (DI)(R10*2), DI
	VMASKMOVPS   48(SI), Y15, Y6
	VBROADCASTSS (DI), Y10
	VFMADD231PS  Y6, Y10, Y2
	VMASKMOVPS   72(SI), Y15, Y7
	VBROADCASTSS (DI)(R10*1), Y11
	VFMADD231PS  Y7, Y11, Y3
	LEAQ         (DI)(R10*2), DI
	ADDQ         $96, SI
	SUBQ         $4, CX
	JMP          c1by4

c1by1:
	TESTQ        CX, CX
	JEQ          c1done
	VMASKMOVPS   (SI), Y15, Y4
	VBROADCASTSS (DI), Y8
	VFMADD231PS  Y4, Y8, Y0
	ADDQ         $24, SI
	ADDQ         R10, DI
	DECQ         CX
	JMP          c1by1

c1done:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DX)
	VZEROUPPER
	RET

// COL4 adds step a's products with B's four columns at (b) into
// acc0-acc3.
#define COL4(a, b, acc0, acc1, acc2, acc3) \
	VBROADCASTSS (b), Y12 \
	VFMADD231PS  a, Y12, acc0 \
	VBROADCASTSS 4(b), Y13 \
	VFMADD231PS  a, Y13, acc1 \
	VBROADCASTSS 8(b), Y12 \
	VFMADD231PS  a, Y12, acc2 \
	VBROADCASTSS 12(b), Y13 \
	VFMADD231PS  a, Y13, acc3

// func kernel6x4(kc int, a, b *float32, ldb int, out *float32)
// Four columns (B's first four of each step), steps in two chains. kc > 0.
TEXT ·kernel6x4(SB), NOSPLIT, $0-40
	MOVQ    kc+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    b+16(FP), DI
	MOVQ    ldb+24(FP), R10
	SHLQ    $2, R10
	MOVQ    out+32(FP), DX
	VMOVDQU sixLanes<>(SB), Y15
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	VXORPS  Y6, Y6, Y6
	VXORPS  Y7, Y7, Y7

c4by2:
	CMPQ       CX, $2
	JLT        c4by1
	VMASKMOVPS (SI), Y15, Y8
	VMASKMOVPS 24(SI), Y15, Y9
	LEAQ       (DI)(R10*1), R11
	COL4(Y8, DI, Y0, Y1, Y2, Y3)
	COL4(Y9, R11, Y4, Y5, Y6, Y7)
	LEAQ       (DI)(R10*2), DI
	ADDQ       $48, SI
	SUBQ       $2, CX
	JMP        c4by2

c4by1:
	TESTQ      CX, CX
	JEQ        c4done
	VMASKMOVPS (SI), Y15, Y8
	COL4(Y8, DI, Y0, Y1, Y2, Y3)

c4done:
	VADDPS  Y4, Y0, Y0
	VADDPS  Y5, Y1, Y1
	VADDPS  Y6, Y2, Y2
	VADDPS  Y7, Y3, Y3
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VZEROUPPER
	RET
