//go:build linux || darwin

package bench

import (
	"fmt"
	"syscall"
)

// sparseRegions reports whether region can reserve sparse memory.
const sparseRegions = true

// region returns zeroed memory of n bytes, mapped outside the Go heap so
// that it is returned to the system as soon as free is called. Sparse
// regions are reserved without backing (only the pages touched use memory),
// like mpipack.c's MAP_NORESERVE mappings.
func region(n int64, sparse bool) (b []byte, free func(), err error) {
	if n == 0 {
		return []byte{}, func() {}, nil
	}
	pg := int64(syscall.Getpagesize())
	l := (n + pg - 1) / pg * pg
	if l <= 0 || int64(int(l)) != l {
		return nil, nil, fmt.Errorf("cannot map %d bytes on this platform", n)
	}
	flags := syscall.MAP_PRIVATE | syscall.MAP_ANON
	if sparse {
		flags |= syscall.MAP_NORESERVE
	}
	m, err := syscall.Mmap(-1, 0, int(l), syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		return nil, nil, fmt.Errorf("mapping %d bytes: %w", n, err)
	}
	return m[:n], func() { syscall.Munmap(m) }, nil
}
