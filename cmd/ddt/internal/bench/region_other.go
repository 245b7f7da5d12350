//go:build !(linux || darwin)

package bench

import (
	"errors"
	"runtime/debug"
)

// sparseRegions reports whether region can reserve sparse memory: not
// here, so the layouts that need it are skipped.
const sparseRegions = false

// region returns zeroed memory of n bytes from the Go heap; free gives it
// back to the system. Sparse regions need mmap and are refused.
func region(n int64, sparse bool) (b []byte, free func(), err error) {
	if sparse {
		return nil, nil, errors.New("sparse memory regions need mmap (Linux or macOS)")
	}
	return make([]byte, n), debug.FreeOSMemory, nil
}
