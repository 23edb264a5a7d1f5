#include "textflag.h"

// AVX2 and FMA forms of the float32 row kernels (vec.go); vecmath.go has
// the Go forms they are tested against, computing the same polynomials in
// the same order. Each function takes its operands by pointer and a count;
// the Go side checks the lengths. An output may be an input (may_alias):
// every block is loaded before it is stored.

// CONST8 defines a 32-byte constant: eight copies of a float32's bits.
#define CONST8(name, bits) \
	DATA name<>+0(SB)/4, bits \
	DATA name<>+4(SB)/4, bits \
	DATA name<>+8(SB)/4, bits \
	DATA name<>+12(SB)/4, bits \
	DATA name<>+16(SB)/4, bits \
	DATA name<>+20(SB)/4, bits \
	DATA name<>+24(SB)/4, bits \
	DATA name<>+28(SB)/4, bits \
	GLOBL name<>(SB), RODATA|NOPTR, $32

CONST8(vecOne, $0x3f800000) // 1.0
CONST8(vecSixth, $0x3e2aaaab) // 1/6
CONST8(vecTwo, $0x40000000) // 2.0
CONST8(vecHalf, $0x3f000000) // 0.5
CONST8(expMax, $0x42b1999a) // 88.8
CONST8(expMin, $0xc2d00000) // -104.0
CONST8(expLog2e, $0x3fb8aa3b) // 1.4426950408889634
CONST8(expLn2Hi, $0x3f318000) // 0.693359375
CONST8(expLn2Lo, $0xb95e8083) // -0.00021219444
CONST8(expP0, $0x39506967) // 0.000198756915
CONST8(expP1, $0x3ab743ce) // 0.0013981999507
CONST8(expP2, $0x3c088908) // 0.0083334519073
CONST8(expP3, $0x3d2aa9c1) // 0.041665795894
CONST8(expP4, $0x3e2aaaaa) // 0.16666665459
CONST8(expP5, $0x3f000000) // 0.50000001201
CONST8(tanhSmall, $0x3f200000) // 0.625
CONST8(tanhP0, $0xbbbaf0ea) // -0.00570498872745
CONST8(tanhP1, $0x3ca9134e) // 0.0206390887954
CONST8(tanhP2, $0xbd5c1e2d) // -0.0537397155531
CONST8(tanhP3, $0x3e088393) // 0.133314422036
CONST8(tanhP4, $0xbeaaaa99) // -0.333332819422
CONST8(erfMax, $0x40800000) // 4.0
CONST8(erfMin, $0xc0800000) // -4.0
CONST8(erfP0, $0xaf95df0b) // -2.72614225801306e-10
CONST8(erfP1, $0x32edffee) // 2.77068142495902e-08
CONST8(erfP2, $0xb60cff51) // -2.10102402082508e-06
CONST8(erfP3, $0xb86ec2d2) // -5.69250639462346e-05
CONST8(erfP4, $0xba40ac63) // -0.000734990630326855
CONST8(erfP5, $0xbb41a1f6) // -0.00295459980854025
CONST8(erfP6, $0xbc83dbd4) // -0.0160960333262415
CONST8(erfQ0, $0xb77460cd) // -1.45660718464996e-05
CONST8(erfQ1, $0xb95fbd29) // -0.000213374055278905
CONST8(erfQ2, $0xbadc924e) // -0.00168282697438203
CONST8(erfQ3, $0xbbf19bf8) // -0.00737332916720468
CONST8(erfQ4, $0xbc69b6a7) // -0.0142647390514189
CONST8(invSqrt2, $0x3f3504f3) // 0.7071067811865476
CONST8(vecSignMask, $0x80000000)
CONST8(vecAbsMask, $0x7fffffff)
CONST8(expBias, $0x0000007f)
CONST8(expFlushBelow, $0xc2ae0000) // -87.0

// BINARY_VV is the loop of dst[i] = a[i] op b[i] (DI, SI, DX, CX = dst,
// a, b, n): 32 floats a step, then 8, then one.
#define BINARY_VV(VOP, SOP, loop32, loop8, loop1, done) \
loop32: \
	CMPQ    CX, $32 \
	JLT     loop8 \
	VMOVUPS (SI), Y0 \
	VMOVUPS 32(SI), Y1 \
	VMOVUPS 64(SI), Y2 \
	VMOVUPS 96(SI), Y3 \
	VOP     (DX), Y0, Y0 \
	VOP     32(DX), Y1, Y1 \
	VOP     64(DX), Y2, Y2 \
	VOP     96(DX), Y3, Y3 \
	VMOVUPS Y0, (DI) \
	VMOVUPS Y1, 32(DI) \
	VMOVUPS Y2, 64(DI) \
	VMOVUPS Y3, 96(DI) \
	ADDQ    $128, SI \
	ADDQ    $128, DX \
	ADDQ    $128, DI \
	SUBQ    $32, CX \
	JMP     loop32 \
loop8: \
	CMPQ    CX, $8 \
	JLT     loop1 \
	VMOVUPS (SI), Y0 \
	VOP     (DX), Y0, Y0 \
	VMOVUPS Y0, (DI) \
	ADDQ    $32, SI \
	ADDQ    $32, DX \
	ADDQ    $32, DI \
	SUBQ    $8, CX \
	JMP     loop8 \
loop1: \
	TESTQ   CX, CX \
	JEQ     done \
	VMOVSS  (SI), X0 \
	SOP     (DX), X0, X0 \
	VMOVSS  X0, (DI) \
	ADDQ    $4, SI \
	ADDQ    $4, DX \
	ADDQ    $4, DI \
	DECQ    CX \
	JMP     loop1 \
done: \
	VZEROUPPER \
	RET

// func addVVAVX2(dst, a, b *float32, n int)
TEXT ·addVVAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY_VV(VADDPS, VADDSS, add32, add8, add1, adddone)

// func subVVAVX2(dst, a, b *float32, n int)
TEXT ·subVVAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY_VV(VSUBPS, VSUBSS, sub32, sub8, sub1, subdone)

// func mulVVAVX2(dst, a, b *float32, n int)
TEXT ·mulVVAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY_VV(VMULPS, VMULSS, mul32, mul8, mul1, muldone)

// func divVVAVX2(dst, a, b *float32, n int)
TEXT ·divVVAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	BINARY_VV(VDIVPS, VDIVSS, div32, div8, div1, divdone)

// BINARY_VS is the loop of dst[i] = FORM(a[i], s) (DI, SI, CX = dst, a,
// n; s broadcast in Y15): FORM is VS_OP for a op s, SV_OP for s op a.
#define VS_OP(OP, m, r) \
	VMOVUPS m, r \
	OP      Y15, r, r

#define SV_OP(OP, m, r) \
	OP m, Y15, r

#define VS_OP1(OP, m) \
	VMOVSS m, X0 \
	OP     X15, X0, X0

#define SV_OP1(OP, m) \
	OP m, X15, X0

#define BINARY_VS(FORM, FORM1, VOP, SOP, loop32, loop8, loop1, done) \
loop32: \
	CMPQ    CX, $32 \
	JLT     loop8 \
	FORM(VOP, (SI), Y0) \
	FORM(VOP, 32(SI), Y1) \
	FORM(VOP, 64(SI), Y2) \
	FORM(VOP, 96(SI), Y3) \
	VMOVUPS Y0, (DI) \
	VMOVUPS Y1, 32(DI) \
	VMOVUPS Y2, 64(DI) \
	VMOVUPS Y3, 96(DI) \
	ADDQ    $128, SI \
	ADDQ    $128, DI \
	SUBQ    $32, CX \
	JMP     loop32 \
loop8: \
	CMPQ    CX, $8 \
	JLT     loop1 \
	FORM(VOP, (SI), Y0) \
	VMOVUPS Y0, (DI) \
	ADDQ    $32, SI \
	ADDQ    $32, DI \
	SUBQ    $8, CX \
	JMP     loop8 \
loop1: \
	TESTQ   CX, CX \
	JEQ     done \
	FORM1(SOP, (SI)) \
	VMOVSS  X0, (DI) \
	ADDQ    $4, SI \
	ADDQ    $4, DI \
	DECQ    CX \
	JMP     loop1 \
done: \
	VZEROUPPER \
	RET

// func addVSAVX2(dst, a *float32, n int, s float32)
TEXT ·addVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	BINARY_VS(VS_OP, VS_OP1, VADDPS, VADDSS, add32, add8, add1, adddone)

// func subVSAVX2(dst, a *float32, n int, s float32)
TEXT ·subVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	BINARY_VS(VS_OP, VS_OP1, VSUBPS, VSUBSS, sub32, sub8, sub1, subdone)

// func mulVSAVX2(dst, a *float32, n int, s float32)
TEXT ·mulVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	BINARY_VS(VS_OP, VS_OP1, VMULPS, VMULSS, mul32, mul8, mul1, muldone)

// func divVSAVX2(dst, a *float32, n int, s float32)
TEXT ·divVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	BINARY_VS(VS_OP, VS_OP1, VDIVPS, VDIVSS, div32, div8, div1, divdone)

// func rsubVSAVX2(dst, a *float32, n int, s float32): s - a[i]
TEXT ·rsubVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	BINARY_VS(SV_OP, SV_OP1, VSUBPS, VSUBSS, sub32, sub8, sub1, subdone)

// func rdivVSAVX2(dst, a *float32, n int, s float32): s / a[i]
TEXT ·rdivVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	BINARY_VS(SV_OP, SV_OP1, VDIVPS, VDIVSS, div32, div8, div1, divdone)

// func reluAVX2(dst, src *float32, n int): x > 0 ? x : 0, NaN kept (as
// PyTorch): MAXPS returns its second source, x, when either is NaN, and
// -0 for -0, which adding +0 makes +0.
TEXT ·reluAVX2(SB), NOSPLIT, $0-24
	MOVQ   dst+0(FP), DI
	MOVQ   src+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPS Y15, Y15, Y15

relu32:
	CMPQ    CX, $32
	JLT     relu8
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMAXPS  Y0, Y15, Y0
	VMAXPS  Y1, Y15, Y1
	VMAXPS  Y2, Y15, Y2
	VMAXPS  Y3, Y15, Y3
	VADDPS  Y15, Y0, Y0
	VADDPS  Y15, Y1, Y1
	VADDPS  Y15, Y2, Y2
	VADDPS  Y15, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	JMP     relu32

relu8:
	CMPQ    CX, $8
	JLT     relu1
	VMOVUPS (SI), Y0
	VMAXPS  Y0, Y15, Y0
	VADDPS  Y15, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     relu8

relu1:
	TESTQ  CX, CX
	JEQ    reludone
	VMOVSS (SI), X0
	VMAXSS X0, X15, X0
	VADDSS X15, X0, X0
	VMOVSS X0, (DI)
	ADDQ   $4, SI
	ADDQ   $4, DI
	DECQ   CX
	JMP    relu1

reludone:
	VZEROUPPER
	RET

// EXPR sets x = e^x (exp32's steps), using t1-t3. The clamps keep a NaN:
// MINPS and MAXPS return their second source, x, when either is NaN.
#define EXPR(x, t1, t2, t3) \
	VMOVUPS      expMax<>(SB), t1 \
	VMINPS       x, t1, x \
	EXPRNEG(x, t1, t2, t3)

// EXPRNEG is EXPR for x at most 0 (or NaN), which the upper clamp would
// leave as it is: the same bits without it.
#define EXPRNEG(x, t1, t2, t3) \
	VMOVUPS      expMin<>(SB), t1 \
	VMAXPS       x, t1, x \
	VMULPS       expLog2e<>(SB), x, t1 \
	VROUNDPS     $0, t1, t1 \
	VFNMADD231PS expLn2Hi<>(SB), t1, x \
	VFNMADD231PS expLn2Lo<>(SB), t1, x \
	VMOVUPS      expP0<>(SB), t2 \
	VFMADD213PS  expP1<>(SB), x, t2 \
	VFMADD213PS  expP2<>(SB), x, t2 \
	VFMADD213PS  expP3<>(SB), x, t2 \
	VFMADD213PS  expP4<>(SB), x, t2 \
	VFMADD213PS  expP5<>(SB), x, t2 \
	VMULPS       x, x, t3 \
	VFMADD213PS  x, t3, t2 \
	VADDPS       vecOne<>(SB), t2, t2 \
	VCVTPS2DQ    t1, t1 \
	VPSRAD       $1, t1, t3 \
	VPSUBD       t3, t1, t1 \
	VPADDD       expBias<>(SB), t3, t3 \
	VPSLLD       $23, t3, t3 \
	VPADDD       expBias<>(SB), t1, t1 \
	VPSLLD       $23, t1, t1 \
	VMULPS       t3, t2, t2 \
	VMULPS       t1, t2, x

// EXP sets Y0 = e^Y0, using Y1-Y3.
#define EXP EXPR(Y0, Y1, Y2, Y3)

// SIGMOIDR sets x = 1/(1+e^-x) from t = e^-|x|: s = 1/(1+t), and t·s
// where x is negative (its sign bit picks), keeping x in t4 and using
// t1-t3.
#define SIGMOIDR(x, t1, t2, t3, t4) \
	VMOVUPS   x, t4 \
	VORPS     vecSignMask<>(SB), x, x \
	EXPRNEG(x, t1, t2, t3) \
	VADDPS    vecOne<>(SB), x, t1 \
	VMOVUPS   vecOne<>(SB), t2 \
	VDIVPS    t1, t2, t2 \
	VMULPS    t2, x, x \
	VBLENDVPS t4, x, t2, x

// TANH sets Y0 = tanh(Y0): 1 - 2/(e^2|x| + 1) with x's sign, or below
// tanhSmall x + x·z·P(z) with z = x², using Y1-Y7.
#define TANH \
	VMOVUPS      Y0, Y4 \
	VANDPS       vecAbsMask<>(SB), Y0, Y5 \
	VADDPS       Y5, Y5, Y0 \
	EXP \
	VADDPS       vecOne<>(SB), Y0, Y0 \
	VMOVUPS      vecTwo<>(SB), Y1 \
	VDIVPS       Y0, Y1, Y0 \
	VMOVUPS      vecOne<>(SB), Y1 \
	VSUBPS       Y0, Y1, Y0 \
	VANDPS       vecSignMask<>(SB), Y4, Y6 \
	VORPS        Y6, Y0, Y0 \
	VMULPS       Y4, Y4, Y1 \
	VMOVUPS      tanhP0<>(SB), Y2 \
	VFMADD213PS  tanhP1<>(SB), Y1, Y2 \
	VFMADD213PS  tanhP2<>(SB), Y1, Y2 \
	VFMADD213PS  tanhP3<>(SB), Y1, Y2 \
	VFMADD213PS  tanhP4<>(SB), Y1, Y2 \
	VMULPS       Y1, Y4, Y3 \
	VFMADD213PS  Y4, Y3, Y2 \
	VCMPPS       $1, tanhSmall<>(SB), Y5, Y7 \
	VBLENDVPS    Y7, Y2, Y0, Y0

// ERF sets Y0 = erf(Y0) (erf32's steps), using Y1-Y3.
#define ERF \
	VMOVUPS     erfMax<>(SB), Y1 \
	VMINPS      Y0, Y1, Y0 \
	VMOVUPS     erfMin<>(SB), Y1 \
	VMAXPS      Y0, Y1, Y0 \
	VMULPS      Y0, Y0, Y1 \
	VMOVUPS     erfP0<>(SB), Y2 \
	VFMADD213PS erfP1<>(SB), Y1, Y2 \
	VFMADD213PS erfP2<>(SB), Y1, Y2 \
	VFMADD213PS erfP3<>(SB), Y1, Y2 \
	VFMADD213PS erfP4<>(SB), Y1, Y2 \
	VFMADD213PS erfP5<>(SB), Y1, Y2 \
	VFMADD213PS erfP6<>(SB), Y1, Y2 \
	VMOVUPS     erfQ0<>(SB), Y3 \
	VFMADD213PS erfQ1<>(SB), Y1, Y3 \
	VFMADD213PS erfQ2<>(SB), Y1, Y3 \
	VFMADD213PS erfQ3<>(SB), Y1, Y3 \
	VFMADD213PS erfQ4<>(SB), Y1, Y3 \
	VDIVPS      Y3, Y2, Y2 \
	VMULPS      Y2, Y0, Y0

// GELU sets Y0 = (x/2)·(1 + erf(x/√2)), using Y1-Y4.
#define GELU \
	VMULPS vecHalf<>(SB), Y0, Y4 \
	VMULPS invSqrt2<>(SB), Y0, Y0 \
	ERF \
	VADDPS vecOne<>(SB), Y0, Y0 \
	VMULPS Y4, Y0, Y0

// UNARY8 is the loop of dst[i] = F(src[i]) over n, a multiple of 8.
#define UNARY8(F, loop, done) \
loop: \
	CMPQ    CX, $8 \
	JLT     done \
	VMOVUPS (SI), Y0 \
	F \
	VMOVUPS Y0, (DI) \
	ADDQ    $32, SI \
	ADDQ    $32, DI \
	SUBQ    $8, CX \
	JMP     loop \
done: \
	VZEROUPPER \
	RET

// func expAVX2(dst, src *float32, n int)
TEXT ·expAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	UNARY8(EXP, exploop, expdone)

// SIGMOID16 is the loop of dst[i] = Sigmoid(src[i]), times src[i] when
// SILU, over n, a multiple of 8: two independent vectors a step, whose
// chains of about 30 dependent instructions overlap, then one.
#define SIGMOID16(SILU, loop16, loop8, done) \
loop16: \
	CMPQ    CX, $16 \
	JLT     loop8 \
	VMOVUPS (SI), Y0 \
	VMOVUPS 32(SI), Y8 \
	SIGMOIDR(Y0, Y1, Y2, Y3, Y4) \
	SIGMOIDR(Y8, Y9, Y10, Y11, Y12) \
	SILU(Y4, Y0) \
	SILU(Y12, Y8) \
	VMOVUPS Y0, (DI) \
	VMOVUPS Y8, 32(DI) \
	ADDQ    $64, SI \
	ADDQ    $64, DI \
	SUBQ    $16, CX \
	JMP     loop16 \
loop8: \
	CMPQ    CX, $8 \
	JLT     done \
	VMOVUPS (SI), Y0 \
	SIGMOIDR(Y0, Y1, Y2, Y3, Y4) \
	SILU(Y4, Y0) \
	VMOVUPS Y0, (DI) \
done: \
	VZEROUPPER \
	RET

#define NOTHING(x, s)
#define TIMESX(x, s) VMULPS x, s, s

// func sigmoidAVX2(dst, src *float32, n int)
TEXT ·sigmoidAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SIGMOID16(NOTHING, sig16, sig8, sigdone)

// func siluAVX2(dst, src *float32, n int)
// dst[i] = src[i]·Sigmoid(src[i]): the product of x and its sigmoid
// rounded to float32, as the two passes give it.
TEXT ·siluAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SIGMOID16(TIMESX, silu16, silu8, siludone)

// func tanhAVX2(dst, src *float32, n int)
TEXT ·tanhAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	UNARY8(TANH, tanhloop, tanhdone)

// func erfAVX2(dst, src *float32, n int)
TEXT ·erfAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	UNARY8(ERF, erfloop, erfdone)

// func geluAVX2(dst, src *float32, n int)
TEXT ·geluAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	UNARY8(GELU, geluloop, geludone)

// The functions with parameters loop as UNARY8 does, with the parameters
// broadcast in Y14 and Y15 first.

// CLIP sets Y0 = min(max(x, lo), hi) with lo, hi in Y14, Y15; a NaN stays
// (MAXPS and MINPS return their second source, x), and so does -0 at a
// bound of 0, as the Go form's comparisons leave it.
#define CLIP \
	VMAXPS Y0, Y14, Y0 \
	VMINPS Y0, Y15, Y0

// LEAKY sets Y0 = x < 0 ? alpha·x : x with alpha in Y14 (x's sign bit
// picks; alpha·-0 is -0, as x itself).
#define LEAKY \
	VMULPS    Y14, Y0, Y1 \
	VBLENDVPS Y0, Y1, Y0, Y0

// HARDSIGMOID sets Y0 = max(0, min(1, alpha·x + beta)) with alpha, beta in
// Y14, Y15 (a NaN stays NaN).
#define HARDSIGMOID \
	VFMADD213PS Y15, Y14, Y0 \
	VMOVUPS     vecOne<>(SB), Y1 \
	VMINPS      Y0, Y1, Y0 \
	VXORPS      Y1, Y1, Y1 \
	VMAXPS      Y0, Y1, Y0

// HARDSWISH sets Y0 = x·max(0, min(1, x/6 + 1/2)), using Y1-Y2.
#define HARDSWISH \
	VMOVUPS     Y0, Y2 \
	VMOVUPS     vecSixth<>(SB), Y1 \
	VFMADD213PS vecHalf<>(SB), Y1, Y0 \
	VMOVUPS     vecOne<>(SB), Y1 \
	VMINPS      Y0, Y1, Y0 \
	VXORPS      Y1, Y1, Y1 \
	VMAXPS      Y0, Y1, Y0 \
	VMULPS      Y2, Y0, Y0

// func clipAVX2(dst, src *float32, n int, lo, hi float32)
TEXT ·clipAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS lo+24(FP), Y14
	VBROADCASTSS hi+28(FP), Y15
	UNARY8(CLIP, cliploop, clipdone)

// func leakyReluAVX2(dst, src *float32, n int, alpha float32)
TEXT ·leakyReluAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS alpha+24(FP), Y14
	UNARY8(LEAKY, leakyloop, leakydone)

// func hardSigmoidAVX2(dst, src *float32, n int, alpha, beta float32)
TEXT ·hardSigmoidAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS alpha+24(FP), Y14
	VBROADCASTSS beta+28(FP), Y15
	UNARY8(HARDSIGMOID, hsigloop, hsigdone)

// func hardSwishAVX2(dst, src *float32, n int)
TEXT ·hardSwishAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	UNARY8(HARDSWISH, hswishloop, hswishdone)

// PRELU_OP sets r = m < 0 ? m·s : m (s in Y15, zero in Y14), as
// binaryVSGo's PRelu: -0 and NaN are not below zero and stay.
#define PRELU_OP(OP, m, r) \
	VMOVUPS   m, r \
	VMULPS    Y15, r, Y8 \
	VCMPPS    $1, Y14, r, Y9 \
	VBLENDVPS Y9, Y8, r, r

#define PRELU_OP1(OP, m) \
	VMOVSS    m, X0 \
	VMULPS    X15, X0, X8 \
	VCMPPS    $1, X14, X0, X9 \
	VBLENDVPS X9, X8, X0, X0

// func preluVSAVX2(dst, a *float32, n int, s float32)
TEXT ·preluVSAVX2(SB), NOSPLIT, $0-28
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS s+24(FP), Y15
	VXORPS       Y14, Y14, Y14
	BINARY_VS(PRELU_OP, PRELU_OP1, NONE, NONE, prelu32, prelu8, prelu1, preludone)

// func expShiftSumAVX2(dst, src *float32, n int, shift float32) float64
// dst[i] = e^(src[i] - shift) over n, a multiple of 8 (0 below
// expFlushBelow: the exponential computed at the bound, then masked), and
// their sum in float64: lanes 0-3 of each block into Y6, 4-7 into Y7,
// folded at the end as laneSum folds them.
TEXT ·expShiftSumAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS shift+24(FP), Y8
	VMOVUPS      expFlushBelow<>(SB), Y10
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7

expsumloop:
	CMPQ         CX, $8
	JLT          expsumdone
	VMOVUPS      (SI), Y0
	VSUBPS       Y8, Y0, Y0
	VCMPPS       $1, expFlushBelow<>(SB), Y0, Y9
	VMAXPS       Y0, Y10, Y0
	EXP
	VANDNPS      Y0, Y9, Y0
	VMOVUPS      Y0, (DI)
	VCVTPS2PD    X0, Y4
	VEXTRACTF128 $1, Y0, X5
	VCVTPS2PD    X5, Y5
	VADDPD       Y4, Y6, Y6
	VADDPD       Y5, Y7, Y7
	ADDQ         $32, SI
	ADDQ         $32, DI
	SUBQ         $8, CX
	JMP          expsumloop

expsumdone:
	VADDPD       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPD       X7, X6, X6
	VPERMILPD    $1, X6, X7
	VADDSD       X7, X6, X6
	VZEROUPPER
	MOVSD        X6, ret+32(FP)
	RET

// func biasClampAVX2(c *float32, ldc, rows, cols int, bias *float32, biasStride int, sum *float32, mode int, lo, hi float32)
// biasClampAVX512 (biasact_amd64.s) for cols a positive multiple of 8:
// each row x + bias[i·biasStride] (+ sum's element, laid out as c), then
// the activation of mode, with this file's macros, so that a fused
// activation gives the bits of the unfused row kernel (siluAVX2 is
// SIGMOIDR, then x times it).
TEXT ·biasClampAVX2(SB), NOSPLIT, $0-72
	MOVQ         c+0(FP), DI
	MOVQ         ldc+8(FP), R8
	SHLQ         $2, R8
	MOVQ         rows+16(FP), R10
	MOVQ         cols+24(FP), R11
	SHRQ         $3, R11
	MOVQ         bias+32(FP), R9
	MOVQ         biasStride+40(FP), R12
	SHLQ         $2, R12
	MOVQ         sum+48(FP), SI
	MOVQ         mode+56(FP), DX
	VBROADCASTSS lo+64(FP), Y14
	VBROADCASTSS hi+68(FP), Y15
	VXORPS       Y13, Y13, Y13

bcrow:
	VBROADCASTSS (R9), Y12
	XORQ         BX, BX
	MOVQ         R11, CX

bcvec:
	VADDPS (DI)(BX*1), Y12, Y0
	TESTQ  SI, SI
	JEQ    bcact
	VADDPS (SI)(BX*1), Y0, Y0

bcact:
	CMPQ DX, $1
	JLT  bcstore
	JEQ  bcrelu
	CMPQ DX, $3
	JLT  bcclip
	JEQ  bchsig
	CMPQ DX, $5
	JLT  bchswish
	JEQ  bcsilu
	SIGMOIDR(Y0, Y1, Y2, Y3, Y4)
	JMP  bcstore

bcsilu:
	SIGMOIDR(Y0, Y1, Y2, Y3, Y4)
	VMULPS Y4, Y0, Y0
	JMP    bcstore

bchswish:
	HARDSWISH
	JMP bcstore

bchsig:
	HARDSIGMOID
	JMP bcstore

bcclip:
	CLIP
	JMP bcstore

bcrelu:
	VMAXPS Y0, Y13, Y0
	VADDPS Y13, Y0, Y0

bcstore:
	VMOVUPS Y0, (DI)(BX*1)
	ADDQ    $32, BX
	DECQ    CX
	JNZ     bcvec
	ADDQ    R8, DI
	TESTQ   SI, SI
	JEQ     bcnext
	ADDQ    R8, SI

bcnext:
	ADDQ  R12, R9
	DECQ  R10
	JNZ   bcrow
	VZEROUPPER
	RET

// func scaleShiftRowsAVX2(dst *float32, ldd int, src *float32, lds, rows, cols int, scale, shift *float32)
// dst row i = src row i · scale[i] + shift[i] (rows ldd and lds floats
// apart), the product rounded before the sum, as mulVSAVX2 then
// addVSAVX2 give it; cols a positive multiple of 8.
TEXT ·scaleShiftRowsAVX2(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ rows+32(FP), R10
	MOVQ cols+40(FP), R11
	SHRQ $3, R11
	MOVQ scale+48(FP), R12
	MOVQ shift+56(FP), R13

ssrow:
	VBROADCASTSS (R12), Y14
	VBROADCASTSS (R13), Y15
	XORQ         BX, BX
	MOVQ         R11, CX

ssvec:
	VMOVUPS (SI)(BX*1), Y0
	VMULPS  Y14, Y0, Y0
	VADDPS  Y15, Y0, Y0
	VMOVUPS Y0, (DI)(BX*1)
	ADDQ    $32, BX
	DECQ    CX
	JNZ     ssvec
	ADDQ    R8, DI
	ADDQ    R9, SI
	ADDQ    $4, R12
	ADDQ    $4, R13
	DECQ    R10
	JNZ     ssrow
	VZEROUPPER
	RET
