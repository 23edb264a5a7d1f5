#include "textflag.h"

// func sumRowAVX2(x *float32, n int, lanes *[4]float64)
// lanes = the sums, in float64, of x[0:n] (n a multiple of 16) in four
// interleaved parts; four accumulators of four doubles.
TEXT ·sumRowAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ lanes+16(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

sumloop:
	CMPQ CX, $16
	JLT sumdone
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JMP sumloop

sumdone:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VMOVUPD Y0, (DI)
	VZEROUPPER
	RET

// func maxRowAVX2(x *float32, n int, lanes *[8]float32)
// lanes = maxima of x[0:n] (n a multiple of 32, at least 32) in eight
// interleaved parts, NaN in a part that holds a NaN.
TEXT ·maxRowAVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ lanes+16(FP), DI
	VBROADCASTSS (SI), Y0
	VMOVAPS Y0, Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y0, Y3
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

maxloop:
	CMPQ CX, $32
	JLT maxdone
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VMAXPS Y4, Y0, Y0
	VMAXPS Y5, Y1, Y1
	VMAXPS Y6, Y2, Y2
	VMAXPS Y7, Y3, Y3
	VCMPPS $3, Y4, Y4, Y4
	VCMPPS $3, Y5, Y5, Y5
	VCMPPS $3, Y6, Y6, Y6
	VCMPPS $3, Y7, Y7, Y7
	VORPS Y4, Y8, Y8
	VORPS Y5, Y9, Y9
	VORPS Y6, Y10, Y10
	VORPS Y7, Y11, Y11
	ADDQ $128, SI
	SUBQ $32, CX
	JMP maxloop

maxdone:
	VMAXPS Y1, Y0, Y0
	VMAXPS Y3, Y2, Y2
	VMAXPS Y2, Y0, Y0
	VORPS Y9, Y8, Y8
	VORPS Y11, Y10, Y10
	VORPS Y10, Y8, Y8
	VORPS Y8, Y0, Y0
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET
