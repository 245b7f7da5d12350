// Package conformance holds the conformance test of ddt against a real MPI
// library: random types (package typegen) are exported to C (lang.ExportC),
// built and run with the MPI compiler wrapper, and MPI's sizes, bounds,
// packed bytes and unpacked images are compared with ddt's. MPICH 4 is the
// only reference: the compiler is mpicc.mpich, or mpicc or the C compiler
// with pkg-config's mpich flags when they build against MPICH's mpi.h; the
// test skips, saying why, when there is no MPICH (Open MPI is never used as
// the reference, only with -conformance.openmpi for information). Run it with
//
//	go test ./internal/conformance -v [-conformance.seed N] [-conformance.n N] [-conformance.openmpi]
//
// Every difference fails the test except MPICH's own faults, which are
// logged and counted: crashes inside MPICH, and results MPICH contradicts
// itself, when its pack of a type differs from its pack of a type the
// standard defines to be equivalent (a subarray listed element by element,
// count instances packed one at a time) and that one agrees with ddt.
// -conformance.strict fails those too.
package conformance
