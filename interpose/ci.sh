#!/usr/bin/env bash
# Builds the MPI interposition library for MPICH and Open MPI, vets its Go
# side with each MPI's flags, and runs its tests (C programs under mpirun
# -np 2 and -np 4, with and without the library). Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for m in mpich openmpi; do
	bash interpose/build.sh "$m" "$TMP/libddtmpi-$m.so"
	test -s "$TMP/libddtmpi-$m.so"
done
(
	eval "$(sh comm/mpi/cgoflags.sh mpicc.mpich)"
	go vet -tags ddtinterpose ./interpose/lib
)
(
	eval "$(sh comm/mpi/cgoflags.sh mpicc.openmpi)"
	go vet -tags ddtinterpose ./interpose/lib
)
# the generated constructor wrappers are current
go run ./interpose/gen -o "$TMP/zconstruct.c"
cmp "$TMP/zconstruct.c" interpose/lib/zconstruct.c
DDT_INTERPOSE_REQUIRE=1 go test -count=1 ./interpose
echo "interpose: MPI interposition tests passed"
