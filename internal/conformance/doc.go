// Package conformance holds the conformance test of ddt against a real MPI
// library: random types (package typegen) are exported to C (lang.ExportC),
// built and run with the MPI compiler wrapper, and MPI's sizes, bounds,
// packed bytes and unpacked images are compared with ddt's. MPICH 4 is the
// reference. Run it with
//
//	go test ./internal/conformance -v [-conformance.seed N] [-conformance.n N] [-conformance.openmpi]
//
// It skips with a message when no MPI C compiler is installed.
package conformance
