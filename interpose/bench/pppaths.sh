#!/usr/bin/env bash
# pppaths.sh - which ping-pong layouts two builds of the library pipeline
# differently: for every layout of ddtpp.c's layouts.h of at least MIN
# packed bytes (default 65536), one short ping-pong (-r 1) per build with
# DDT_MPI_STATS=1, and one line "MPI layout size BUILD=pipelined ..." with
# rank 0's pipelined count of each. Layouts whose counts differ took a
# different path; the others ran the same code in both builds, so their
# difference in a ppab.sh run is the machine's noise.
#
#   BUILDS="base=/tmp/base-mpich.so new=/tmp/new-mpich.so" MPI=mpich bash interpose/bench/pppaths.sh
#
# ONLY (an extended regular expression on "id size": only those layouts),
# OUT (results directory; layouts.h and ddtpp are built there).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MPI=${MPI:?set MPI to mpich or openmpi}
MIN=${MIN:-65536}
ONLY=${ONLY:-.}
read -r -a BL <<< "${BUILDS:?set BUILDS}"
OUT=${OUT:-"$HERE/results/pppaths-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$OUT/layouts.h" ] || (cd "$ROOT" && go run ./cmd/ddt/internal/bench/ppgen -ddtbench medium,large) > "$OUT/layouts.h"
mpicc.$MPI -O2 -std=gnu11 -w -I"$OUT" "$HERE/ddtpp.c" -o "$OUT/ddtpp_$MPI"
# the layouts: {"id", "size", ..., packed bytes (8th field), ...}
grep -E '^\s*\{"' "$OUT/layouts.h" | awk -F', ' -v min="$MIN" '{gsub(/[{" ]/, "", $1); gsub(/"/, "", $2); p = $8; sub(/L$/, "", p); if (p + 0 >= min) print $1, $2}' | sort -u | grep -E "$ONLY" |
while read -r id sz; do
    line="$MPI $id $sz"
    for spec in "${BL[@]}"; do
        name=${spec%%=*} lib=${spec#*=}
        if [ "$MPI" = mpich ]; then
            out=$(timeout 120 mpirun.mpich -np 2 -genv LD_PRELOAD "$lib" -genv DDT_MPI_STATS 1 "$OUT/ddtpp_mpich" -m pp -f "$id" -s "$sz" -r 1 2>&1 </dev/null || true)
        else
            out=$(timeout 120 mpirun.openmpi -np 2 -x LD_PRELOAD="$lib" -x DDT_MPI_STATS=1 "$OUT/ddtpp_openmpi" -m pp -f "$id" -s "$sz" -r 1 2>&1 </dev/null || true)
        fi
        line="$line $name=$(echo "$out" | grep 'rank=0' | grep -o 'pipelined=[0-9]*' | head -1 | cut -d= -f2)"
    done
    echo "$line"
done | tee "$OUT/paths.txt"
