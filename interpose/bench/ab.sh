#!/usr/bin/env bash
# MPI_Pack/MPI_Unpack with the library against the MPI library's own, in
# one process: ddtpp -m ab times MPI_Pack (the library's, preloaded) and
# PMPI_Pack (the MPI library's) on the same buffers, samples interleaved
# one by one, so that the noise of a shared machine hits both alike. The
# same run without the library (both columns the MPI library) is the
# method's null test: its ratios show what noise alone does.
#
#   ROUNDS=5 CELLS="NAS_LU_x:S SPECFEM3D_oc.recv:L" bash interpose/bench/ab.sh
#
# Environment: CELLS (PREFIX:SIZES ..., ddtpp -f PREFIX -s SIZES; default
# every layout, every size), ROUNDS (3: processes per cell and build),
# MPIS ("mpich openmpi"), LIBS_mpich / LIBS_openmpi ("name=LIB ...": the
# libraries to compare, each against PMPI in its own process; default:
# lib=a library built from this tree), NULL (1: also run without a
# library), OUT (results directory).
# Table: per cell and MPI, the median over rounds of pmpi / library (> 1:
# the library is faster) for pack and unpack, with the range over rounds.
# With NULL=1 and 5 rounds or more, `awk -v mode=ab -f verdict.awk
# OUT/all.tsv` tells per cell whether the library is slower or faster
# than the runs without it say noise alone would be (a rank-sum test).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROUNDS=${ROUNDS:-3}
NULL=${NULL:-1}
read -r -a MPIS <<< "${MPIS:-mpich openmpi}"
CELLS=${CELLS:-":SMLX"}
OUT=${OUT:-$(mktemp -d /tmp/ddtab.XXXXXX)}
mkdir -p "$OUT"
(cd "$ROOT" && go run ./cmd/ddt/internal/bench/ppgen -ddtbench small,medium,large) > "$OUT/layouts.h"
declare -A LIB
declare -A NAMES
for m in "${MPIS[@]}"; do
    mpicc.$m -O2 -std=gnu11 -w -I"$OUT" "$HERE/ddtpp.c" -o "$OUT/ddtpp_$m"
    lv=LIBS_$m
    libs=${!lv:-}
    if [ -z "$libs" ]; then
        bash "$ROOT/interpose/build.sh" "$m" "$OUT/libddtmpi-$m.so"
        libs="lib=$OUT/libddtmpi-$m.so"
    fi
    NAMES[$m]=""
    for nl in $libs; do
        NAMES[$m]+=" ${nl%%=*}"
        LIB[$m+${nl%%=*}]=${nl#*=}
    done
    [ "$NULL" = 1 ] && NAMES[$m]+=" null"
done
: > "$OUT/all.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for cell in $CELLS; do
        for m in "${MPIS[@]}"; do
            for b in ${NAMES[$m]}; do
                pre=()
                [ "$b" = null ] || pre=(LD_PRELOAD="${LIB[$m+$b]}")
                env "${pre[@]}" BENCH_IMPL="$m+$b" "$OUT/ddtpp_$m" -m ab -f "${cell%%:*}" -s "${cell#*:}" 2>>"$OUT/err" |
                    awk -v r="$r" -F'\t' '$1 == "A" { print r "\t" $0 }' >> "$OUT/all.tsv"
            done
        done
    done
done
awk -f "$HERE/ab.awk" "$OUT/all.tsv" | tee "$OUT/table.txt"
echo "raw: $OUT/all.tsv" >&2
