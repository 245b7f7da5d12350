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
	if rc == C.int(C.ddt_success()) {
		return nil
	}
	return &Error{Op: op, Code: int(rc)}
}
