//go:build mpi && !mpich && !mpicc

package mpi

// #cgo pkg-config: ompi-c
import "C"

// Library is the MPI library the package is built against.
const Library = "Open MPI"
