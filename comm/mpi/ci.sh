#!/usr/bin/env bash
# Runs the MPI transport's tests and the examples under mpirun with 2 and 4
# ranks, on Open MPI (and on MPICH when DDT_CI_MPICH=1). Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go vet -tags mpi ./...
go test -c -tags mpi -o "$tmp"/mpi.test ./comm/mpi
go build -tags mpi -o "$tmp"/halo3d ./examples/halo3d
go build -tags mpi -o "$tmp"/transpose ./examples/transpose
go build -tags mpi -o "$tmp"/pingpong ./examples/pingpong
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT="--allow-run-as-root"
OMPI="mpirun.openmpi $ROOT --oversubscribe"
for np in 2 4; do
    $OMPI -np $np "$tmp"/mpi.test -test.timeout=300s
    DDT_MPI_MODE=packed $OMPI -np $np "$tmp"/transpose -n 64
    DDT_MPI_MODE=native $OMPI -np $np "$tmp"/halo3d -n 6 -iters 2
done
$OMPI -np 2 "$tmp"/pingpong -n 10,100 -iters 20 >/dev/null

if [ "${DDT_CI_MPICH:-0}" = 1 ]; then
    go vet -tags mpi,mpich ./comm/mpi
    go test -c -tags mpi,mpich -o "$tmp"/mpich.test ./comm/mpi
    for np in 2 4; do
        mpirun.mpich -np $np "$tmp"/mpich.test -test.timeout=300s
    done
fi
echo "comm/mpi: MPI tests passed"
