#!/usr/bin/env bash
# Runs seed 003's communication experiment on this machine and writes what
# bench/comm.md reports: the DDTBench ping-pong (Go through comm/mpi
# and the C baseline, on Open MPI and MPICH, 2 ranks), its table and SVG,
# and the FFT transpose and halo examples under mpirun -np 2 in each
# comm/mpi mode (3 runs each; the examples time the exchange only, without
# MPI init and finalize).
#
#	bash examples/commbench/run.sh            # CONFIG=small,medium by default
#
# GOMAXPROCS=1: with 2 ranks on 2 cores, a Go runtime with 2 threads per
# rank oversubscribes the cores against MPI's busy polling (MPICH's round
# trips then take ~1 ms instead of ~25 µs).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/commbench}
CONFIG=${CONFIG:-small,medium}
BUDGET=${BUDGET:-8388608}
mkdir -p "$OUT"
ROOT=""
[ "$(id -u)" -eq 0 ] && ROOT="--allow-run-as-root"
OMPI="mpirun.openmpi $ROOT --oversubscribe -np 2 -x GOMAXPROCS=1"
MPICH="mpirun.mpich -np 2 -env GOMAXPROCS 1"

go build -tags mpi -o "$OUT/cb-ompi" ./examples/commbench
go build -tags mpi,mpich -o "$OUT/cb-mpich" ./examples/commbench
# the standalone C program busy-polls in MPI: on a loaded machine its
# round trips are slow, so it gets a smaller budget and a time limit (its
# rows are flushed per layout); the c-bytes rows of the Go program are the
# in-process C floor, interleaved with the Go methods
"$OUT/cb-ompi" -config "$CONFIG" -budget "${C_BUDGET:-524288}" -emit-c "$OUT/commbench.c"
mpicc.openmpi -O2 -o "$OUT/c-ompi" "$OUT/commbench.c"
mpicc.mpich -O2 -o "$OUT/c-mpich" "$OUT/commbench.c"

$OMPI "$OUT/cb-ompi" -config "$CONFIG" -budget "$BUDGET" > "$OUT/go-ompi.tsv"
timeout "${C_TIMEOUT:-600}" $OMPI "$OUT/c-ompi" > "$OUT/c-ompi.tsv" || echo "C baseline on Open MPI: stopped (timeout)" >&2
$MPICH "$OUT/cb-mpich" -config "$CONFIG" -budget "$BUDGET" > "$OUT/go-mpich.tsv"
timeout "${C_TIMEOUT:-600}" $MPICH "$OUT/c-mpich" > "$OUT/c-mpich.tsv" || echo "C baseline on MPICH: stopped (timeout)" >&2
go run ./examples/commbench/plot -svg bench/commbench.svg \
    "$OUT/go-ompi.tsv" "$OUT/go-mpich.tsv" "$OUT/c-ompi.tsv" "$OUT/c-mpich.tsv" > "$OUT/tables.md"

go build -tags mpi -o "$OUT/transpose-ompi" ./examples/transpose
go build -tags mpi -o "$OUT/halo3d-ompi" ./examples/halo3d
go build -tags mpi,mpich -o "$OUT/transpose-mpich" ./examples/transpose
go build -tags mpi,mpich -o "$OUT/halo3d-mpich" ./examples/halo3d
: > "$OUT/apps.txt"
for mode in raw native packed; do
    for run in 1 2 3; do
        echo "Open MPI $mode: $($OMPI -x DDT_MPI_MODE=$mode "$OUT/transpose-ompi" -ranks 2 -n 1024)" >> "$OUT/apps.txt"
        echo "Open MPI $mode: $($OMPI -x DDT_MPI_MODE=$mode "$OUT/halo3d-ompi" -ranks 2 -n 32 -iters 20)" >> "$OUT/apps.txt"
        echo "MPICH $mode: $($MPICH -env DDT_MPI_MODE $mode "$OUT/transpose-mpich" -ranks 2 -n 1024)" >> "$OUT/apps.txt"
        echo "MPICH $mode: $($MPICH -env DDT_MPI_MODE $mode "$OUT/halo3d-mpich" -ranks 2 -n 32 -iters 20)" >> "$OUT/apps.txt"
    done
done
echo "results in $OUT (tables.md, apps.txt) and bench/commbench.svg"
