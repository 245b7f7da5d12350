//go:build amd64 && !noasm

#include "textflag.h"

// Block copies with AVX2 for CPUs without AVX-512. Every block is copied
// exactly with a few possibly overlapping unaligned loads and stores
// chosen by its length (all loads of a block of up to 128 bytes happen
// before its stores); longer blocks move 32 bytes at a time until 128 or
// fewer are left. No byte outside the block is read or written.

// COPYV copies CX bytes from SI to DI. It clobbers CX, SI, DI, R9, R10
// and Y0-Y3, and ends at label done.
#define COPYV \
	CMPQ CX, $64 \
	JA   gt64 \
	CMPQ CX, $32 \
	JAE  c32 \
	CMPQ CX, $16 \
	JAE  c16 \
	CMPQ CX, $8 \
	JAE  c8 \
	CMPQ CX, $4 \
	JAE  c4 \
	CMPQ CX, $2 \
	JAE  c2 \
	TESTQ CX, CX \
	JZ   done \
	MOVB (SI), R9 \
	MOVB R9, (DI) \
	JMP  done \
c2: \
	MOVW (SI), R9 \
	MOVW -2(SI)(CX*1), R10 \
	MOVW R9, (DI) \
	MOVW R10, -2(DI)(CX*1) \
	JMP  done \
c4: \
	MOVL (SI), R9 \
	MOVL -4(SI)(CX*1), R10 \
	MOVL R9, (DI) \
	MOVL R10, -4(DI)(CX*1) \
	JMP  done \
c8: \
	MOVQ (SI), R9 \
	MOVQ -8(SI)(CX*1), R10 \
	MOVQ R9, (DI) \
	MOVQ R10, -8(DI)(CX*1) \
	JMP  done \
c16: \
	VMOVDQU (SI), X0 \
	VMOVDQU -16(SI)(CX*1), X1 \
	VMOVDQU X0, (DI) \
	VMOVDQU X1, -16(DI)(CX*1) \
	JMP  done \
c32: \
	VMOVDQU (SI), Y0 \
	VMOVDQU -32(SI)(CX*1), Y1 \
	VMOVDQU Y0, (DI) \
	VMOVDQU Y1, -32(DI)(CX*1) \
	JMP  done \
gt64: \
	CMPQ CX, $128 \
	JBE  c64 \
	VMOVDQU (SI), Y0 \
	VMOVDQU Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DI \
	SUBQ $32, CX \
	JMP  gt64 \
c64: \
	VMOVDQU (SI), Y0 \
	VMOVDQU 32(SI), Y1 \
	VMOVDQU -64(SI)(CX*1), Y2 \
	VMOVDQU -32(SI)(CX*1), Y3 \
	VMOVDQU Y0, (DI) \
	VMOVDQU Y1, 32(DI) \
	VMOVDQU Y2, -64(DI)(CX*1) \
	VMOVDQU Y3, -32(DI)(CX*1) \
done:

// func gatherAVX2(p, m unsafe.Pointer, mo int, offs, lens *int64, n, lstep, es int)
TEXT ·gatherAVX2(SB), NOSPLIT, $0-64
	MOVQ p+0(FP), R12
	MOVQ m+8(FP), R13
	ADDQ mo+16(FP), R13
	MOVQ offs+24(FP), BX
	MOVQ lens+32(FP), DX
	MOVQ n+40(FP), AX
	MOVQ lstep+48(FP), R8
	TESTQ AX, AX
	JLE  end

loop:
	MOVQ (BX), SI
	ADDQ R13, SI
	MOVQ (DX), CX
	IMULQ es+56(FP), CX
	MOVQ R12, DI
	ADDQ CX, R12
	COPYV
	ADDQ $8, BX
	ADDQ R8, DX
	DECQ AX
	JNZ  loop

end:
	VZEROUPPER
	RET

// func scatterAVX2(m unsafe.Pointer, mo int, p unsafe.Pointer, offs, lens *int64, n, lstep, es int)
TEXT ·scatterAVX2(SB), NOSPLIT, $0-64
	MOVQ m+0(FP), R13
	ADDQ mo+8(FP), R13
	MOVQ p+16(FP), R12
	MOVQ offs+24(FP), BX
	MOVQ lens+32(FP), DX
	MOVQ n+40(FP), AX
	MOVQ lstep+48(FP), R8
	TESTQ AX, AX
	JLE  end

loop:
	MOVQ (BX), DI
	ADDQ R13, DI
	MOVQ (DX), CX
	IMULQ es+56(FP), CX
	MOVQ R12, SI
	ADDQ CX, R12
	COPYV
	ADDQ $8, BX
	ADDQ R8, DX
	DECQ AX
	JNZ  loop

end:
	VZEROUPPER
	RET

// func stridedAVX2(d unsafe.Pointer, ds int, s unsafe.Pointer, ss int, n, L int)
TEXT ·stridedAVX2(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), R11
	MOVQ ds+8(FP), R12
	MOVQ s+16(FP), R8
	MOVQ ss+24(FP), R13
	MOVQ n+32(FP), AX
	MOVQ L+40(FP), BX
	TESTQ AX, AX
	JLE  end

loop:
	MOVQ R8, SI
	MOVQ R11, DI
	MOVQ BX, CX
	COPYV
	ADDQ R13, R8
	ADDQ R12, R11
	DECQ AX
	JNZ  loop

end:
	VZEROUPPER
	RET

// func gather8AVX2(d, s unsafe.Pointer, ss, n int)
//
// Packs n 8-byte elements, element i from s+i*ss, to d one after the
// other. Four at a time in one YMM register without shuffles: VMOVSD
// loads the first, VBROADCASTSD (a load alone) and VBLENDPD (any vector
// ALU port) place each other one; one 32-byte store. (VMOVHPD and
// VINSERTF128 are shuffles, all on one port, which bounds such packs of
// elements in L1: bench/RESULTS.md §23.) The rest one by one.
TEXT ·gather8AVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ ss+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (BX)(BX*2), R8  // 3*ss
	MOVQ BX, R9
	SHLQ $2, R9          // 4*ss
	CMPQ CX, $4
	JLT  g8tail

g8loop:
	VMOVSD       (SI), X0
	VBROADCASTSD (SI)(BX*1), Y1
	VBLENDPD     $2, Y1, Y0, Y0
	VBROADCASTSD (SI)(BX*2), Y1
	VBLENDPD     $4, Y1, Y0, Y0
	VBROADCASTSD (SI)(R8*1), Y1
	VBLENDPD     $8, Y1, Y0, Y0
	VMOVUPD      Y0, (DI)
	ADDQ R9, SI
	ADDQ $32, DI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  g8loop

g8tail:
	TESTQ CX, CX
	JLE   g8done

g8one:
	MOVQ (SI), AX
	MOVQ AX, (DI)
	ADDQ BX, SI
	ADDQ $8, DI
	DECQ CX
	JNZ  g8one

g8done:
	VZEROUPPER
	RET
