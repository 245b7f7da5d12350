//go:build amd64 && !noasm

#include "textflag.h"

// Copies with non-temporal stores, for destinations larger than the
// last-level cache (package ddt packs large messages through a small
// cache-resident buffer and copies each piece out with these): the
// stores bypass the caches, so the destination's lines are neither read
// for ownership nor left evicting the source. The caller guarantees
// n >= 256 and that the ranges do not overlap. The first 64 bytes are
// copied with ordinary stores, then the destination is aligned to 64
// bytes and whole lines go out with aligned non-temporal stores, then the
// last 64 bytes (overlapping) with ordinary stores after an SFENCE, which
// also orders the non-temporal stores before any later store of the
// caller (another goroutine may read the buffer once it is told).

// func copyNTAVX2(d, s unsafe.Pointer, n int)
TEXT ·copyNTAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	// the last 64 bytes, loaded now, stored at the end
	VMOVDQU -64(SI)(CX*1), Y2
	VMOVDQU -32(SI)(CX*1), Y3
	LEAQ    -64(DI)(CX*1), R8
	// head: 64 bytes, then align DI up to 64
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	MOVQ    DI, AX
	ANDQ    $63, AX
	MOVQ    $64, BX
	SUBQ    AX, BX // 1..64 bytes to the next line
	ADDQ    BX, DI
	ADDQ    BX, SI
	SUBQ    BX, CX
	// whole lines, two per iteration while 128 are left
	CMPQ    CX, $128
	JB      line
loop2:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y4
	VMOVDQU 96(SI), Y5
	VMOVNTDQ Y0, (DI)
	VMOVNTDQ Y1, 32(DI)
	VMOVNTDQ Y4, 64(DI)
	VMOVNTDQ Y5, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $128, CX
	CMPQ    CX, $128
	JAE     loop2
line:
	CMPQ    CX, $64
	JB      tail
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVNTDQ Y0, (DI)
	VMOVNTDQ Y1, 32(DI)
tail:
	SFENCE
	VMOVDQU Y2, (R8)
	VMOVDQU Y3, 32(R8)
	VZEROUPPER
	RET

// func copyNTAVX512(d, s unsafe.Pointer, n int)
TEXT ·copyNTAVX512(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	VMOVDQU64 -64(SI)(CX*1), Z2
	LEAQ      -64(DI)(CX*1), R8
	VMOVDQU64 (SI), Z0
	VMOVDQU64 Z0, (DI)
	MOVQ      DI, AX
	ANDQ      $63, AX
	MOVQ      $64, BX
	SUBQ      AX, BX
	ADDQ      BX, DI
	ADDQ      BX, SI
	SUBQ      BX, CX
	CMPQ      CX, $256
	JB        line512
loop4:
	VMOVDQU64 (SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z3
	VMOVDQU64 192(SI), Z4
	VMOVNTDQ  Z0, (DI)
	VMOVNTDQ  Z1, 64(DI)
	VMOVNTDQ  Z3, 128(DI)
	VMOVNTDQ  Z4, 192(DI)
	ADDQ      $256, SI
	ADDQ      $256, DI
	SUBQ      $256, CX
	CMPQ      CX, $256
	JAE       loop4
line512:
	CMPQ      CX, $64
	JB        tail512
	VMOVDQU64 (SI), Z0
	VMOVNTDQ  Z0, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $64, CX
	JMP       line512
tail512:
	SFENCE
	VMOVDQU64 Z2, (R8)
	VZEROUPPER
	RET
