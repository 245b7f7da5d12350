//go:build mpi && mpicc

package mpi

// With the tag mpicc, cgo takes its flags from the environment
// (CGO_CFLAGS, CGO_LDFLAGS), as cgoflags.sh prints them from the MPI
// compiler wrapper, instead of from pkg-config.

/*
#include <mpi.h>
#if defined(OPEN_MPI)
static const char *ddt_library(void) { return "Open MPI"; }
#elif defined(MPICH)
static const char *ddt_library(void) { return "MPICH"; }
#else
static const char *ddt_library(void) { return "MPI"; }
#endif
*/
import "C"

// Library is the MPI library the package is built against, as its mpi.h
// tells.
var Library = C.GoString(C.ddt_library())
