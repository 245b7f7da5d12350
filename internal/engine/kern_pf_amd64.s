//go:build amd64 && !noasm

#include "textflag.h"

// PF_AHEAD prefetches the block whose offset R11 points at (from R13)
// and advances R11 to the next entry. Clobbers AX.
#define PF_AHEAD \
	MOVQ       (R11), AX \
	PREFETCHT0 (R13)(AX*1) \
	ADDQ       $8, R11

// MOVE(LD, R, N) moves the block of N bytes whose offset BX points at
// (from R13) to DI through register R with the move LD, and advances BX
// and DI; MOVE4, MOVE8 and MOVE16 are its three widths, MOVE24 two moves.
// Clobbers AX, SI and X0.
#define MOVE(LD, R, N) \
	MOVQ (BX), SI \
	LD   (R13)(SI*1), R \
	LD   R, (DI) \
	ADDQ $8, BX \
	ADDQ $N, DI

#define MOVE4 MOVE(MOVL, AX, 4)
#define MOVE8 MOVE(MOVQ, AX, 8)
#define MOVE16 MOVE(MOVUPS, X0, 16)

#define MOVE24 \
	MOVQ   (BX), SI \
	MOVUPS (R13)(SI*1), X0 \
	MOVQ   16(R13)(SI*1), AX \
	MOVUPS X0, (DI) \
	MOVQ   AX, 16(DI) \
	ADDQ   $8, BX \
	ADDQ   $24, DI

// func gatherPF(p, m unsafe.Pointer, mo int, offs *int64, n, L, dist int)
//
// Packs n blocks of L bytes (4, 8, 16 or 24): block i at m+mo+offs[i] goes
// to p+i*L. While dist or more blocks are left, each block also
// prefetches (PREFETCHT0) the block dist entries on; the last dist blocks
// run without. (m+mo alone may lie outside m's object; only block
// addresses are formed, and a prefetch never faults.)
TEXT ·gatherPF(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), DI
	MOVQ m+8(FP), R13
	ADDQ mo+16(FP), R13
	MOVQ offs+24(FP), BX
	MOVQ n+32(FP), CX
	MOVQ L+40(FP), R9
	MOVQ dist+48(FP), R10
	LEAQ (BX)(R10*8), R11
	MOVQ CX, R12
	SUBQ R10, R12        // blocks with a prefetch
	JLE  rest
	SUBQ R12, CX         // blocks left after them
	CMPQ R9, $4
	JEQ  pf4
	CMPQ R9, $8
	JEQ  pf8
	CMPQ R9, $16
	JEQ  pf16

pf24:
	PF_AHEAD
	MOVE24
	DECQ R12
	JNZ  pf24
	JMP  rest

pf16:
	PF_AHEAD
	MOVE16
	DECQ R12
	JNZ  pf16
	JMP  rest

pf8:
	PF_AHEAD
	MOVE8
	DECQ R12
	JNZ  pf8
	JMP  rest

pf4:
	PF_AHEAD
	MOVE4
	DECQ R12
	JNZ  pf4

rest:
	// the CX blocks left, without prefetches
	TESTQ CX, CX
	JLE   done
	CMPQ  R9, $4
	JEQ   r4
	CMPQ  R9, $8
	JEQ   r8
	CMPQ  R9, $16
	JEQ   r16

r24:
	MOVE24
	DECQ CX
	JNZ  r24
	RET

r16:
	MOVE16
	DECQ CX
	JNZ  r16
	RET

r8:
	MOVE8
	DECQ CX
	JNZ  r8
	RET

r4:
	MOVE4
	DECQ CX
	JNZ  r4

done:
	RET
