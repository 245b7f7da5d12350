//go:build amd64 && linux

#include "textflag.h"

// func call(fn uintptr, a *args)
//
// The one entry into generated code: loads the arguments into the
// registers the generated functions expect (RDI memory address of the
// first unit, RSI packed address, RCX unit count) and calls fn. The
// generated code is a leaf that uses no stack, so the return address is
// all this frame adds; it may clobber every register but SP and BP (Go's
// ABI0 wrapper restores the registers ABIInternal reserves).
TEXT ·call(SB), NOSPLIT, $16-16
	MOVQ a+8(FP), AX
	MOVQ 0(AX), DI
	ADDQ 8(AX), DI
	MOVQ 16(AX), SI
	MOVQ 24(AX), CX
	MOVQ 32(AX), R8
	MOVQ fn+0(FP), AX
	CALL AX
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
