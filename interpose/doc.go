// Package interpose holds the tests of the ddt MPI interposition library,
// whose sources are in interpose/lib (a c-shared library built by
// interpose/build.sh, contract ../shared/spec/interpose.md, documentation
// docs/interpose.md) and whose constructor wrappers interpose/gen writes.
package interpose

//go:generate go run ./gen
