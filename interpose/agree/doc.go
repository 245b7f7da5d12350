// Package agree holds the agreement test of the MPI interposition library
// (interpose/, contract ../shared/spec/interpose.md): random types from
// internal/typegen are exported to C (lang.ExportC), built by one C program
// through the MPI constructors, and packed, unpacked and sent between ranks
// (derived to derived, derived to MPI_PACKED, MPI_PACKED to derived) with
// the library preloaded. Every result must be byte-equal to ddt's own
// (Committed.Pack and Unpack, what `ddt pack` and `ddt unpack` run, checked
// in turn against a flattening of the type map) and to the same program
// without the library, on MPICH and on Open MPI. Run it with
//
//	go test ./interpose/agree -v [-agree.n 400] [-agree.seed N] [-agree.np 4]
//
// It skips, saying why, when an MPI or the library's build script is
// missing. DDT_INTERPOSE_MPICH and DDT_INTERPOSE_OPENMPI name prebuilt
// libraries (CI builds them once); otherwise the test builds them with
// interpose/build.sh.
package agree
