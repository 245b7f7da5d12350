//go:build mpi

package mpi

/*
#include "ddt_mpi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

var (
	anySource   = int(C.ddt_any_source())
	anyTag      = int(C.ddt_any_tag())
	errTruncate = int(C.ddt_err_truncate())
	// mpiSuccess is MPI_SUCCESS, read once: check runs on every send and
	// receive, and a cgo call there cost as much as a tenth of a small
	// send and receive to self.
	mpiSuccess = C.ddt_success()
)

// Error is an error code returned by the MPI library.
type Error struct {
	Op   string // the MPI function
	Code int
}

func (e *Error) Error() string {
	buf := (*C.char)(C.malloc(C.size_t(C.ddt_max_error_string()) + 1))
	defer C.free(unsafe.Pointer(buf))
	C.ddt_error_string(C.int(e.Code), buf)
	return fmt.Sprintf("%s: %s (MPI error %d)", e.Op, C.GoString(buf), e.Code)
}

func check(op string, rc C.int) error {
	if rc == mpiSuccess {
		return nil
	}
	return &Error{Op: op, Code: int(rc)}
}
