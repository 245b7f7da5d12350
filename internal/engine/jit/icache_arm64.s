//go:build arm64 && linux

#include "textflag.h"

// func syncICache(start, end uintptr)
// DC CVAU over [start, end) by the data cache line, DSB ISH, IC IVAU by
// the instruction cache line, DSB ISH, ISB. The line sizes are 4 <<
// CTR_EL0.DminLine (bits 19:16) and 4 << CTR_EL0.IminLine (bits 3:0)
// bytes. IC IVAU is written as its instruction word (SYS #3, C7, C5, #1).
TEXT ·syncICache(SB), NOSPLIT|NOFRAME, $0-16
	MOVD	start+0(FP), R0
	MOVD	end+8(FP), R1
	MRS	CTR_EL0, R2
	UBFX	$16, R2, $4, R3
	MOVD	$4, R4
	LSL	R3, R4, R3	// R3 = data cache line
	SUB	$1, R3, R5
	BIC	R5, R0, R6	// R6 = start rounded down to a line
dloop:
	DC	CVAU, R6
	ADD	R3, R6, R6
	CMP	R1, R6
	BLO	dloop
	DSB	$11	// ISH
	AND	$15, R2, R3
	LSL	R3, R4, R3	// R3 = instruction cache line
	SUB	$1, R3, R5
	BIC	R5, R0, R6
iloop:
	WORD	$0xd50b7526	// IC IVAU, X6
	ADD	R3, R6, R6
	CMP	R1, R6
	BLO	iloop
	DSB	$11	// ISH
	ISB	$15
	RET
