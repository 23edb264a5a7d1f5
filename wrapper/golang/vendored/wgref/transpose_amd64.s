#include "textflag.h"

// func transposeBlocks(dst *uint32, ldd int, src *uint32, lds, rows, cols int)
// dst[i*ldd+j] = src[j*lds+i] for j < rows, i < cols (multiples of 8):
// each 8×8 block of src loaded as eight rows, transposed by unpacks,
// shuffles and lane permutes, stored as eight rows of dst.
TEXT ·transposeBlocks(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R9
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R8
	MOVQ rows+32(FP), R10
	MOVQ cols+40(FP), R11
	SHLQ $2, R8
	SHLQ $2, R9
	LEAQ (R8)(R8*2), R12
	LEAQ (R9)(R9*2), R13

rowblock:
	CMPQ R10, $8
	JLT  done
	MOVQ SI, AX
	MOVQ DI, CX
	MOVQ R11, R14

colblock:
	CMPQ       R14, $8
	JLT        nextrows
	LEAQ       (AX)(R8*4), BX
	VMOVUPS    (AX), Y0
	VMOVUPS    (AX)(R8*1), Y1
	VMOVUPS    (AX)(R8*2), Y2
	VMOVUPS    (AX)(R12*1), Y3
	VMOVUPS    (BX), Y4
	VMOVUPS    (BX)(R8*1), Y5
	VMOVUPS    (BX)(R8*2), Y6
	VMOVUPS    (BX)(R12*1), Y7
	VUNPCKLPS  Y1, Y0, Y8
	VUNPCKHPS  Y1, Y0, Y9
	VUNPCKLPS  Y3, Y2, Y10
	VUNPCKHPS  Y3, Y2, Y11
	VUNPCKLPS  Y5, Y4, Y12
	VUNPCKHPS  Y5, Y4, Y13
	VUNPCKLPS  Y7, Y6, Y14
	VUNPCKHPS  Y7, Y6, Y15
	VSHUFPS    $0x44, Y10, Y8, Y0
	VSHUFPS    $0xee, Y10, Y8, Y1
	VSHUFPS    $0x44, Y11, Y9, Y2
	VSHUFPS    $0xee, Y11, Y9, Y3
	VSHUFPS    $0x44, Y14, Y12, Y4
	VSHUFPS    $0xee, Y14, Y12, Y5
	VSHUFPS    $0x44, Y15, Y13, Y6
	VSHUFPS    $0xee, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	LEAQ       (CX)(R9*4), DX
	VMOVUPS    Y8, (CX)
	VMOVUPS    Y9, (CX)(R9*1)
	VMOVUPS    Y10, (CX)(R9*2)
	VMOVUPS    Y11, (CX)(R13*1)
	VMOVUPS    Y12, (DX)
	VMOVUPS    Y13, (DX)(R9*1)
	VMOVUPS    Y14, (DX)(R9*2)
	VMOVUPS    Y15, (DX)(R13*1)
	ADDQ       $32, AX
	LEAQ       (DX)(R9*4), CX
	SUBQ       $8, R14
	JMP        colblock

nextrows:
	LEAQ (SI)(R8*8), SI
	ADDQ $32, DI
	SUBQ $8, R10
	JMP  rowblock

done:
	VZEROUPPER
	RET
