// Package ctest holds the project's own tests of the MPI interposition
// library (interpose/, contract ../shared/spec/interpose.md) that the
// peers' datatype suites taught (MPICH's test/mpi/datatype, Open MPI's
// ompi/test/datatype; docs/interpose-peers.md has the table and which test
// taught what). Each C program in testdata/ checks its own results; the Go
// test compiles it for MPICH and Open MPI and runs it under mpirun -np 2
// and -np 4, without the library and with it preloaded, and reads the
// statistics lines. Directives in a program's comment:
//
//	want: stats|packs|sends   statistics lines on every rank; packs+unpacks > 0; sends+recvs > 0
//	skip: MPI                 not run on that MPI (its own bug, with or without the library)
//	skip-plain: MPI           not run without the library on that MPI (its own bug)
//	known: TEXT               a known bug of the library: its failure is logged, failing only with -ctest.strict
//
// Run it with
//
//	go test ./interpose/test -v [-ctest.np 2,4] [-ctest.mpi mpich,openmpi] [-ctest.strict]
//
// DDT_INTERPOSE_MPICH and DDT_INTERPOSE_OPENMPI name prebuilt libraries;
// otherwise interpose/build.sh builds them.
package ctest
