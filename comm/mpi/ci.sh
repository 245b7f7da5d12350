#!/usr/bin/env bash
# Runs the MPI transport's tests and the examples under mpirun with 2 and 4
# ranks, on Open MPI and (when DDT_CI_MPICH=1 or mpirun.mpich exists) on
# MPICH. Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../.."

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT="--allow-run-as-root"
OMPI="mpirun.openmpi $ROOT --oversubscribe"

go vet -tags mpi ./...
go test -c -tags mpi -o "$TMP/mpi.test" ./comm/mpi
go build -tags mpi -o "$TMP/halo3d" ./examples/halo3d
go build -tags mpi -o "$TMP/transpose" ./examples/transpose
go build -tags mpi -o "$TMP/pingpong" ./examples/pingpong
for np in 2 4; do
    $OMPI -np $np "$TMP/mpi.test" -test.timeout=300s
    # messages never received: Finalize reports them on both sides, no hang
    DDT_MPI_FINALIZE_TEST=1 timeout 120 $OMPI -x DDT_MPI_FINALIZE_TEST -np $np "$TMP/mpi.test" >/dev/null
    DDT_MPI_MODE=packed $OMPI -np $np "$TMP/transpose" -n 64
    DDT_MPI_MODE=native $OMPI -np $np "$TMP/halo3d" -n 6 -iters 2
done
$OMPI -np 2 "$TMP/pingpong" -n 10,100 -iters 20 >/dev/null

if [ "${DDT_CI_MPICH:-0}" = 1 ] || command -v mpirun.mpich >/dev/null 2>&1; then
    go vet -tags mpi,mpich ./comm/mpi
    go test -c -tags mpi,mpich -o "$TMP/mpich.test" ./comm/mpi
    for np in 2 4; do
        mpirun.mpich -np $np "$TMP/mpich.test" -test.timeout=300s
        DDT_MPI_FINALIZE_TEST=1 timeout 120 mpirun.mpich -np $np "$TMP/mpich.test" >/dev/null
    done
fi
# without pkg-config: cgo flags from the mpicc wrapper (tag mpicc)
(
    eval "$(sh comm/mpi/cgoflags.sh mpicc.openmpi)"
    go vet -tags mpi,mpicc ./comm/mpi
    go test -c -tags mpi,mpicc -o "$TMP/mpicc.test" ./comm/mpi
    $OMPI -np 2 "$TMP/mpicc.test" -test.timeout=300s -test.run 'TestSuite|TestSplit'
)
if command -v mpicc.mpich >/dev/null 2>&1; then
    (
        eval "$(sh comm/mpi/cgoflags.sh mpicc.mpich)"
        go test -c -tags mpi,mpicc -o "$TMP/mpicc-mpich.test" ./comm/mpi
        mpirun.mpich -np 2 "$TMP/mpicc-mpich.test" -test.timeout=300s -test.run 'TestSuite|TestSplit'
    )
fi
echo "comm/mpi: MPI tests passed"
