//go:build amd64 && !noasm

#include "textflag.h"

// Block copies with AVX-512 masked moves. A masked load or store touches
// only the bytes whose mask bit is set (the others are neither read nor
// written, and cannot fault), so every block is copied exactly: no byte
// outside [src, src+len) is read and none outside [dst, dst+len) is
// written. Blocks of up to 128 bytes take two masked 64-byte moves and no
// branch; longer ones move 64 bytes at a time until 128 or fewer are left.
// All loads of a block of up to 128 bytes happen before its stores.

// COPY128 copies CX <= 128 bytes from SI to DI. It expects R8 = -1 and
// R11 = 0 and clobbers CX, R10, K1, K2, Z0 and Z1.
#define COPY128 \
	BZHIQ   CX, R8, R10 \
	KMOVQ   R10, K1 \
	SUBQ    $64, CX \
	CMOVQLT R11, CX \
	BZHIQ   CX, R8, R10 \
	KMOVQ   R10, K2 \
	VMOVDQU8.Z (SI), K1, Z0 \
	VMOVDQU8.Z 64(SI), K2, Z1 \
	VMOVDQU8 Z0, K1, (DI) \
	VMOVDQU8 Z1, K2, 64(DI)

// func gatherAVX512(p, m unsafe.Pointer, mo int, offs, lens *int64, n, lstep, es int)
//
// Packs n blocks: block i, lens[i]*es bytes at m+mo+offs[i], goes to p, the
// blocks one after the other. lens advances lstep bytes per block: 8 for a
// list of lengths, 0 for one length shared by all blocks; lengths are in
// units of es bytes. (m+mo alone may lie outside m's object, so
// Go code never forms it; only the block addresses are used.)
TEXT ·gatherAVX512(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), DI
	MOVQ m+8(FP), R13
	ADDQ mo+16(FP), R13
	MOVQ offs+24(FP), BX
	MOVQ lens+32(FP), DX
	MOVQ n+40(FP), AX
	MOVQ lstep+48(FP), R9
	MOVQ $-1, R8
	XORQ R11, R11
	TESTQ AX, AX
	JLE  gdone

gloop:
	MOVQ (BX), SI
	ADDQ R13, SI
	MOVQ (DX), CX
	IMULQ es+56(FP), CX
	LEAQ (DI)(CX*1), R12
	CMPQ CX, $128
	JA   glong

gshort:
	COPY128
	MOVQ R12, DI
	ADDQ $8, BX
	ADDQ R9, DX
	DECQ AX
	JNZ  gloop

gdone:
	VZEROUPPER
	RET

glong:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	CMPQ CX, $128
	JA   glong
	JMP  gshort

// func scatterAVX512(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens *int64, n, lstep, es int)
//
// Unpacks n blocks: block i, lens[i]*es bytes read from p one after the
// other, goes to m+mo+offs[i]. Blocks are written in list order.
TEXT ·scatterAVX512(SB), NOSPLIT, $0-64
	MOVQ m+0(FP), R13
	ADDQ mo+8(FP), R13
	MOVQ p+16(FP), SI
	MOVQ offs+24(FP), BX
	MOVQ lens+32(FP), DX
	MOVQ n+40(FP), AX
	MOVQ lstep+48(FP), R9
	MOVQ $-1, R8
	XORQ R11, R11
	TESTQ AX, AX
	JLE  sdone

sloop:
	MOVQ (BX), DI
	ADDQ R13, DI
	MOVQ (DX), CX
	IMULQ es+56(FP), CX
	LEAQ (SI)(CX*1), R12
	CMPQ CX, $128
	JA   slong

sshort:
	COPY128
	MOVQ R12, SI
	ADDQ $8, BX
	ADDQ R9, DX
	DECQ AX
	JNZ  sloop

sdone:
	VZEROUPPER
	RET

slong:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 Z0, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $64, CX
	CMPQ CX, $128
	JA   slong
	JMP  sshort

// func stridedAVX512(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int)
//
// Copies n blocks of L bytes: block i from s+i*ss to d+i*ds. Each block
// moves (L-1)/64 whole 64-byte words and a masked tail of 1 to 64 bytes.
TEXT ·stridedAVX512(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ ds+8(FP), R12
	MOVQ s+16(FP), SI
	MOVQ ss+24(FP), R13
	MOVQ n+32(FP), AX
	MOVQ L+40(FP), CX
	TESTQ AX, AX
	JLE  tdone
	TESTQ CX, CX
	JLE  tdone
	LEAQ -1(CX), BX
	SHRQ $6, BX          // BX = whole words per block
	MOVQ BX, R9
	SHLQ $6, R9          // R9 = offset of the tail
	SUBQ R9, CX          // CX = tail bytes, 1..64
	MOVQ $-1, R8
	BZHIQ CX, R8, R10
	KMOVQ R10, K1
	TESTQ BX, BX
	JNZ  tloop

tsmall:
	VMOVDQU8.Z (SI), K1, Z0
	VMOVDQU8 Z0, K1, (DI)
	ADDQ R13, SI
	ADDQ R12, DI
	DECQ AX
	JNZ  tsmall
	JMP  tdone

tloop:
	MOVQ BX, DX
	XORQ R10, R10

tinner:
	VMOVDQU64 (SI)(R10*1), Z0
	VMOVDQU64 Z0, (DI)(R10*1)
	ADDQ $64, R10
	DECQ DX
	JNZ  tinner
	VMOVDQU8.Z (SI)(R9*1), K1, Z0
	VMOVDQU8 Z0, K1, (DI)(R9*1)
	ADDQ R13, SI
	ADDQ R12, DI
	DECQ AX
	JNZ  tloop

tdone:
	VZEROUPPER
	RET
