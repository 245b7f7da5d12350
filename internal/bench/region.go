package bench

import "syscall"

// region returns zeroed memory of n bytes; sparse regions are reserved
// without backing (only the pages touched use memory), like mpipack.c's
// MAP_NORESERVE mappings.
func region(n int64, sparse bool) ([]byte, func(), error) {
	if !sparse {
		return make([]byte, n), func() {}, nil
	}
	pg := int64(syscall.Getpagesize())
	l := (n + pg - 1) / pg * pg
	b, err := syscall.Mmap(-1, 0, int(l), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, nil, err
	}
	return b[:n], func() { syscall.Munmap(b) }, nil
}
