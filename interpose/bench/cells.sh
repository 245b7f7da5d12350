#!/usr/bin/env bash
# Re-measure chosen MPI_Pack/MPI_Unpack cells many times, builds alternated
# in one run, to tell real losses from noise (the full run.sh takes each
# cell twice). Per round every build runs each process once, in rotated
# order; each process reports the median of 12 samples of >= 2.5 ms; the
# table gives, per cell and build, the median over rounds and the ratio
# base / build (> 1: faster than the MPI library alone) with its range
# over rounds (each round's ratio pairs processes of the same round).
#
#   ROUNDS=7 DDT="NAS_LU_x:S NAS_MG_x.recv:M SPECFEM3D_oc.recv:L" HARN="L2 L4c" \
#     LIBS_mpich="ddt=/tmp/libddtmpi-mpich.so" bash interpose/bench/cells.sh
#
# Environment: ROUNDS (5); MPIS ("mpich openmpi"); DDT: DDTBench cells as
# PREFIX:SIZES (ddtpp -m pack -f PREFIX -s SIZES); HARN: anchors harness
# groups (mpipack.c -f GROUP, every size); LIBS_mpich, LIBS_openmpi:
# "name=LIB ..." the libraries to compare (default: ddt=a library built
# from this tree); OUT (results directory); ANCHORS (../shared/anchors).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ANCHORS=${ANCHORS:-/work/shared/anchors}
ROUNDS=${ROUNDS:-5}
ROUND0=${ROUND0:-0} # rounds are numbered from ROUND0+1 (to merge runs)
read -r -a MPIS <<< "${MPIS:-mpich openmpi}"
DDT=${DDT:-}
HARN=${HARN:-}
OUT=${OUT:-$(mktemp -d /tmp/ddtcells.XXXXXX)}
mkdir -p "$OUT/raw"
B=$OUT
(cd "$ROOT" && go run ./cmd/ddt/internal/bench/ppgen -ddtbench small,medium,large) > "$B/layouts.h"
declare -A LIB
BUILDS=()
for m in "${MPIS[@]}"; do
    mpicc.$m -O2 -std=gnu11 -w -I"$B" "$HERE/ddtpp.c" -o "$B/ddtpp_$m"
    [ -z "$HARN" ] || mpicc.$m -O3 -march=native -std=gnu11 -w "$ANCHORS/mpipack/mpipack.c" -o "$B/mpipack_$m"
    lv=LIBS_$m
    libs=${!lv:-}
    if [ -z "$libs" ]; then
        bash "$ROOT/interpose/build.sh" "$m" "$B/libddtmpi-$m.so"
        libs="ddt=$B/libddtmpi-$m.so"
    fi
    BUILDS+=("$m")
    for nl in $libs; do
        BUILDS+=("$m+${nl%%=*}")
        LIB[$m+${nl%%=*}]=${nl#*=}
    done
done
NB=${#BUILDS[@]}
gi=0
for r in $(seq $((ROUND0 + 1)) $((ROUND0 + ROUNDS))); do
    for cell in $DDT $HARN; do
        for ((j = 0; j < NB; j++)); do
            b=${BUILDS[$(((gi + j) % NB))]}
            m=${b%%+*}
            pre=()
            [ "$b" = "$m" ] || pre=(LD_PRELOAD="${LIB[$b]}")
            if [[ "$cell" == *:* ]]; then
                env "${pre[@]}" "$B/ddtpp_$m" -m pack -f "${cell%%:*}" -s "${cell#*:}"
            else
                env "${pre[@]}" "$B/mpipack_$m" -f "$cell" -k 9
            fi 2>>"$OUT/raw/err" | awk -v b="$b" -v r="$r" -F'\t' '$1 == "R" { print b "\t" r "\t" $3 "\t" $4 "\t" $8 "\t" $10 "\t" $11 "\t" $15 }' >> "$OUT/raw/all.tsv"
        done
        gi=$((gi + 1))
    done
done
awk -f "$HERE/cells.awk" "$OUT/raw/all.tsv" | tee "$OUT/table.txt"
echo "raw: $OUT/raw/all.tsv" >&2
