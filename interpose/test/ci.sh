#!/usr/bin/env bash
# CI for interpose/test and interpose/agree (called by .ci/run). The
# README's `go test ./...` has run both already with their defaults (the
# peer-derived programs under -np 2 and -np 4, the agreement test's rings
# of 2 ranks), on MPICH and Open MPI, with and without the library; this
# adds the agreement test's rings of 4 ranks, with the library built once
# per MPI.
set -euo pipefail
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for m in mpich openmpi; do
    bash interpose/build.sh "$m" "$TMP/libddtmpi-$m.so"
done
export DDT_INTERPOSE_MPICH=$TMP/libddtmpi-mpich.so DDT_INTERPOSE_OPENMPI=$TMP/libddtmpi-openmpi.so
go test -count=1 ./interpose/agree -agree.np 4
echo "interpose/test, interpose/agree: passed"
