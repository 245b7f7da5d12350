//go:build amd64 && linux

#include "textflag.h"

// func call(fn uintptr, base unsafe.Pointer, off int, pk unsafe.Pointer, n, b0 int)
//
// The one entry into generated code: loads the arguments into the
// registers the generated functions expect (RDI memory address of the
// first unit, RSI packed address, RCX unit count, R8 first block of a
// listed block entry) and calls fn. The arguments are separate words, not
// a struct: copying a struct built just before stalls on store
// forwarding (a quarter of a 2 KB call). The
// generated code is a leaf that uses no stack, so the return address is
// all this frame adds; it may clobber every register but SP and BP (Go's
// ABI0 wrapper restores the registers ABIInternal reserves).
TEXT ·call(SB), NOSPLIT, $0-48
	MOVQ base+8(FP), DI
	ADDQ off+16(FP), DI
	MOVQ pk+24(FP), SI
	MOVQ n+32(FP), CX
	MOVQ b0+40(FP), R8
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
