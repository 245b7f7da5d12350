//go:build !mpi

// Command pingpong is the ping-pong of seed 000 §II on real MPI; it needs
// the build tag mpi (see main.go):
//
//	go build -tags mpi -o /tmp/pingpong ./examples/pingpong
//	mpirun -np 2 /tmp/pingpong -n 100,1000,2000
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, `pingpong measures real MPI: build it with the tag mpi and run it under mpirun:
	go build -tags mpi -o /tmp/pingpong ./examples/pingpong
	mpirun -np 2 /tmp/pingpong -n 100,1000,2000
(add the tag mpich for MPICH; examples/halo3d and examples/transpose also run in process)`)
	os.Exit(2)
}
