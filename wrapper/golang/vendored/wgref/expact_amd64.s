#include "textflag.h"
#include "expact_amd64.h"

// func expActAVX512(dst, src *float32, n int, sigmoid bool)
// dst[i] = src[i]·Sigmoid(src[i]) (SiLU), or with sigmoid Sigmoid(src[i]),
// for i < n, n a multiple of 16, Sigmoid as sigmoid32 computes it (see
// SIGMOID in expact_amd64.h).
TEXT ·expActAVX512(SB), NOSPLIT, $0-25
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVBLZX sigmoid+24(FP), DX
	EXPACT_CONSTS

loop:
	CMPQ CX, $16
	JLT done
	VMOVUPS (SI), Z0
	SIGMOID
	TESTQ DX, DX
	JNE store
	VMULPS Z0, Z5, Z5

store:
	VMOVUPS Z5, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP loop

done:
	VZEROUPPER
	RET
