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

// The AVX-512 path's counterparts: a packed A step's twelve floats fill
// lanes 0-11 of a ZMM vector (loaded under K1, the rest zeroed).
// out[16j+i] is row i of column j.

// func kernel12x1(kc int, a, b *float32, ldb int, out *float32)
// One column, steps in four chains. kc > 0.
TEXT ·kernel12x1(SB), NOSPLIT, $0-40
	MOVQ   kc+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   b+16(FP), DI
	MOVQ   ldb+24(FP), R10
	SHLQ   $2, R10
	MOVQ   out+32(FP), DX
	MOVQ   $0x0fff, AX
	KMOVW  AX, K1
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

z1by4:
	CMPQ         CX, $4
	JLT          z1by1
	VMOVUPS.Z    (SI), K1, Z4
	VBROADCASTSS (DI), Z8
	VFMADD231PS  Z4, Z8, Z0
	VMOVUPS.Z    48(SI), K1, Z5
	VBROADCASTSS (DI)(R10*1), Z9
	VFMADD231PS  Z5, Z9, Z1
	LEAQ         (DI)(R10*2), DI
	VMOVUPS.Z    96(SI), K1, Z6
	VBROADCASTSS (DI), Z10
	VFMADD231PS  Z6, Z10, Z2
	VMOVUPS.Z    144(SI), K1, Z7
	VBROADCASTSS (DI)(R10*1), Z11
	VFMADD231PS  Z7, Z11, Z3
	LEAQ         (DI)(R10*2), DI
	ADDQ         $192, SI
	SUBQ         $4, CX
	JMP          z1by4

z1by1:
	TESTQ        CX, CX
	JEQ          z1done
	VMOVUPS.Z    (SI), K1, Z4
	VBROADCASTSS (DI), Z8
	VFMADD231PS  Z4, Z8, Z0
	ADDQ         $48, SI
	ADDQ         R10, DI
	DECQ         CX
	JMP          z1by1

z1done:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z2, Z0, Z0
	VMOVUPS Z0, (DX)
	VZEROUPPER
	RET

// ZCOL4 is COL4 on ZMM vectors.
#define ZCOL4(a, b, acc0, acc1, acc2, acc3) \
	VBROADCASTSS (b), Z12 \
	VFMADD231PS  a, Z12, acc0 \
	VBROADCASTSS 4(b), Z13 \
	VFMADD231PS  a, Z13, acc1 \
	VBROADCASTSS 8(b), Z12 \
	VFMADD231PS  a, Z12, acc2 \
	VBROADCASTSS 12(b), Z13 \
	VFMADD231PS  a, Z13, acc3

// func kernel12x4(kc int, a, b *float32, ldb int, out *float32)
// Four columns (B's first four of each step), steps in two chains. kc > 0.
TEXT ·kernel12x4(SB), NOSPLIT, $0-40
	MOVQ   kc+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   b+16(FP), DI
	MOVQ   ldb+24(FP), R10
	SHLQ   $2, R10
	MOVQ   out+32(FP), DX
	MOVQ   $0x0fff, AX
	KMOVW  AX, K1
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

z4by2:
	CMPQ      CX, $2
	JLT       z4by1
	VMOVUPS.Z (SI), K1, Z8
	VMOVUPS.Z 48(SI), K1, Z9
	LEAQ      (DI)(R10*1), R11
	ZCOL4(Z8, DI, Z0, Z1, Z2, Z3)
	ZCOL4(Z9, R11, Z4, Z5, Z6, Z7)
	LEAQ      (DI)(R10*2), DI
	ADDQ      $96, SI
	SUBQ      $2, CX
	JMP       z4by2

z4by1:
	TESTQ     CX, CX
	JEQ       z4done
	VMOVUPS.Z (SI), K1, Z8
	ZCOL4(Z8, DI, Z0, Z1, Z2, Z3)

z4done:
	VADDPS  Z4, Z0, Z0
	VADDPS  Z5, Z1, Z1
	VADDPS  Z6, Z2, Z2
	VADDPS  Z7, Z3, Z3
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, 128(DX)
	VMOVUPS Z3, 192(DX)
	VZEROUPPER
	RET
