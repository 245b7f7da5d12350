//go:build arm64 && linux

package jit

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// supported reports whether this build can run generated code.
const supported = true

// hostVec is the widest move of the arm64 code: 32 bytes, an LDP/STP of
// two NEON Q registers.
func hostVec() int { return 32 }

// hostVBMI is false: the VPERMB compaction is amd64 code.
func hostVBMI() bool { return false }

// hostPrefW is false: PREFETCHW is amd64's.
func hostPrefW() bool { return false }

// hostERMS is false: REP MOVSB is amd64's.
func hostERMS() bool { return false }

// syncICache makes the instruction cache coherent with the data written
// to [start, end): DC CVAU on every data cache line, DSB ISH, IC IVAU on
// every instruction cache line, DSB ISH, ISB (line sizes from CTR_EL0;
// icache_arm64.s).
//
//go:noescape
func syncICache(start, end uintptr)

// mapCode copies code into fresh pages mapped read+write, makes them
// read+execute (never writable and executable at once), then makes the
// instruction cache coherent with what was written (arm64 fetches
// instructions through its own cache, which stores do not update): in
// this thread by syncICache, and in the process's other threads by
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) where the kernel
// has it (Linux 4.16 on; a thread that runs the code later may run on
// another core, and a core's pipeline could hold instructions fetched
// from these addresses when they held other code).
func mapCode(code []byte) ([]byte, error) {
	n := (len(code) + pageSize - 1) &^ (pageSize - 1)
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("jit: mmap %d bytes: %w", n, err)
	}
	copy(m, code)
	if err := syscall.Mprotect(m, syscall.PROT_READ|syscall.PROT_EXEC); err != nil {
		syscall.Munmap(m)
		return nil, fmt.Errorf("jit: mprotect: %w", err)
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	syncICache(base, base+uintptr(len(code)))
	syncCores()
	return m, nil
}

// membarrier commands (linux/membarrier.h) and the system call number on
// arm64 (the syscall package has no name for it).
const (
	sysMembarrier           = 283
	membarrierSyncCore      = 1 << 5 // MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE
	membarrierRegisterSync  = 1 << 6 // MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE
	membarrierQuery         = 0      // MEMBARRIER_CMD_QUERY
	membarrierSyncSupported = membarrierSyncCore | membarrierRegisterSync
)

// syncRegistered reports whether the process registered for core
// serializing membarriers (once; false where the kernel, or an emulator,
// lacks them).
var syncRegistered = sync.OnceValue(func() bool {
	r, _, e := syscall.Syscall(sysMembarrier, membarrierQuery, 0, 0)
	if e != 0 || r&membarrierSyncSupported != membarrierSyncSupported {
		return false
	}
	_, _, e = syscall.Syscall(sysMembarrier, membarrierRegisterSync, 0, 0)
	return e == 0
})

// syncCores has every thread of the process execute a context
// synchronization event before it returns to user code, if the kernel
// offers it.
func syncCores() {
	if syncRegistered() {
		syscall.Syscall(sysMembarrier, membarrierSyncCore, 0, 0)
	}
}

// unmapCode releases pages of mapCode.
func unmapCode(m []byte) { syscall.Munmap(m) }

var pageSize = syscall.Getpagesize()

// abiProbe is six functions of probeLen bytes each: function k returns
// the register the ABI should hold argument k in (R0-R5) in R0, the
// result register.
var abiProbe = []byte{
	0xc0, 0x03, 0x5f, 0xd6, 0x1f, 0x20, 0x03, 0xd5, // ret; nop
	0xe0, 0x03, 0x01, 0xaa, 0xc0, 0x03, 0x5f, 0xd6, // mov x0, x1; ret
	0xe0, 0x03, 0x02, 0xaa, 0xc0, 0x03, 0x5f, 0xd6, // mov x0, x2; ret
	0xe0, 0x03, 0x03, 0xaa, 0xc0, 0x03, 0x5f, 0xd6, // mov x0, x3; ret
	0xe0, 0x03, 0x04, 0xaa, 0xc0, 0x03, 0x5f, 0xd6, // mov x0, x4; ret
	0xe0, 0x03, 0x05, 0xaa, 0xc0, 0x03, 0x5f, 0xd6, // mov x0, x5; ret
}

const probeLen = 8

// hostAMD reports whether the CPU is AMD's (unpackThrottleOf).
func hostAMD() bool { return false }
