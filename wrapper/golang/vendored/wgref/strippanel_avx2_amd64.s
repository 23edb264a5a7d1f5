#include "textflag.h"

// Lane bits: lane i of laneBits<>+32*v holds 1<<(8v+i), so that a mask
// word broadcast to every lane, ANDed with it and compared equal to it,
// sets the lanes of vector v whose bits are set.
DATA laneBits<>+0(SB)/4, $0x1
DATA laneBits<>+4(SB)/4, $0x2
DATA laneBits<>+8(SB)/4, $0x4
DATA laneBits<>+12(SB)/4, $0x8
DATA laneBits<>+16(SB)/4, $0x10
DATA laneBits<>+20(SB)/4, $0x20
DATA laneBits<>+24(SB)/4, $0x40
DATA laneBits<>+28(SB)/4, $0x80
DATA laneBits<>+32(SB)/4, $0x100
DATA laneBits<>+36(SB)/4, $0x200
DATA laneBits<>+40(SB)/4, $0x400
DATA laneBits<>+44(SB)/4, $0x800
DATA laneBits<>+48(SB)/4, $0x1000
DATA laneBits<>+52(SB)/4, $0x2000
DATA laneBits<>+56(SB)/4, $0x4000
DATA laneBits<>+60(SB)/4, $0x8000
DATA laneBits<>+64(SB)/4, $0x10000
DATA laneBits<>+68(SB)/4, $0x20000
DATA laneBits<>+72(SB)/4, $0x40000
DATA laneBits<>+76(SB)/4, $0x80000
DATA laneBits<>+80(SB)/4, $0x100000
DATA laneBits<>+84(SB)/4, $0x200000
DATA laneBits<>+88(SB)/4, $0x400000
DATA laneBits<>+92(SB)/4, $0x800000
DATA laneBits<>+96(SB)/4, $0x1000000
DATA laneBits<>+100(SB)/4, $0x2000000
DATA laneBits<>+104(SB)/4, $0x4000000
DATA laneBits<>+108(SB)/4, $0x8000000
DATA laneBits<>+112(SB)/4, $0x10000000
DATA laneBits<>+116(SB)/4, $0x20000000
DATA laneBits<>+120(SB)/4, $0x40000000
DATA laneBits<>+124(SB)/4, $0x80000000
GLOBL laneBits<>(SB), RODATA, $128

// func stripPanelAVX2(dst *float32, rows int, src *float32, chanBytes int, kp, ksz int, offs *int, masks *uint64, step, runs int)
// stripPanelAVX512 for the AVX2 path's panels of 16 columns: row p reads,
// for kernel position kp (counted from kp, wrapping at ksz onto the next
// channel, chanBytes further in src), lane c from src + 4*(offs[runs*kp+s]
// + step*c) for the run s whose bit of masks[runs*kp+s] is set (lane c's
// bit for step 1, bit 2c for step 2), else 0. Each run's lanes are loaded
// under a mask made from its bits (VMASKMOVPS reads, and faults on,
// nothing outside them) and ORed into the row, whose other lanes are 0;
// for step 2 the 32 floats a row spans are loaded and their even lanes
// kept.
TEXT ·stripPanelAVX2(SB), NOSPLIT, $0-80
	MOVQ    dst+0(FP), DI
	MOVQ    rows+8(FP), CX
	MOVQ    src+16(FP), SI
	MOVQ    chanBytes+24(FP), R8
	MOVQ    kp+32(FP), DX
	MOVQ    ksz+40(FP), R9
	MOVQ    step+64(FP), R12
	VMOVDQU laneBits<>+0(SB), Y12
	VMOVDQU laneBits<>+32(SB), Y13
	VMOVDQU laneBits<>+64(SB), Y14
	VMOVDQU laneBits<>+96(SB), Y15

striprow:
	TESTQ CX, CX
	JEQ   stripdone
	// R10, R11: this kernel position's first run.
	MOVQ  runs+72(FP), R14
	MOVQ  DX, AX
	IMULQ R14, AX
	SHLQ  $3, AX
	MOVQ  offs+48(FP), R10
	ADDQ  AX, R10
	MOVQ  masks+56(FP), R11
	ADDQ  AX, R11
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ  R12, $2
	JEQ   strip2run
	// One run whose sixteen lanes all read inside the input (most
	// panels of wide rows): two plain loads.
	CMPQ  R14, $1
	JNE   strip1run
	CMPQ  (R11), $0xffff
	JNE   strip1run
	MOVQ  (R10), R13
	VMOVUPS (SI)(R13*4), Y0
	VMOVUPS 32(SI)(R13*4), Y1
	JMP   stripstore

strip1run:
	MOVQ         (R10), R13
	LEAQ         (SI)(R13*4), R13
	MOVQ         (R11), BX
	VMOVD        BX, X4
	VPBROADCASTD X4, Y4
	VPAND        Y12, Y4, Y5
	VPCMPEQD     Y12, Y5, Y5
	VMASKMOVPS   (R13), Y5, Y6
	VORPS        Y6, Y0, Y0
	VPAND        Y13, Y4, Y5
	VPCMPEQD     Y13, Y5, Y5
	VMASKMOVPS   32(R13), Y5, Y6
	VORPS        Y6, Y1, Y1
	ADDQ         $8, R10
	ADDQ         $8, R11
	DECQ         R14
	JNZ          strip1run
	JMP          stripstore

strip2run:
	MOVQ         (R10), R13
	LEAQ         (SI)(R13*4), R13
	MOVQ         (R11), BX
	VMOVD        BX, X4
	VPBROADCASTD X4, Y4
	VPAND        Y12, Y4, Y5
	VPCMPEQD     Y12, Y5, Y5
	VMASKMOVPS   (R13), Y5, Y6
	VORPS        Y6, Y0, Y0
	VPAND        Y13, Y4, Y5
	VPCMPEQD     Y13, Y5, Y5
	VMASKMOVPS   32(R13), Y5, Y6
	VORPS        Y6, Y1, Y1
	VPAND        Y14, Y4, Y5
	VPCMPEQD     Y14, Y5, Y5
	VMASKMOVPS   64(R13), Y5, Y6
	VORPS        Y6, Y2, Y2
	VPAND        Y15, Y4, Y5
	VPCMPEQD     Y15, Y5, Y5
	VMASKMOVPS   96(R13), Y5, Y6
	VORPS        Y6, Y3, Y3
	ADDQ         $8, R10
	ADDQ         $8, R11
	DECQ         R14
	JNZ          strip2run
	// Even lanes: SHUFPS takes lanes 0 and 2 of each pair of 128-bit
	// halves, PERMPD puts the halves back in order.
	VSHUFPS $0x88, Y1, Y0, Y0
	VPERMPD $0xD8, Y0, Y0
	VSHUFPS $0x88, Y3, Y2, Y1
	VPERMPD $0xD8, Y1, Y1

stripstore:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    $64, DI
	INCQ    DX
	CMPQ    DX, R9
	JLT     stripsame
	XORQ    DX, DX
	ADDQ    R8, SI

stripsame:
	DECQ CX
	JMP  striprow

stripdone:
	VZEROUPPER
	RET
