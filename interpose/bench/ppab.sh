#!/usr/bin/env bash
# ppab.sh - the derived-datatype ping-pong of ddtpp.c (rank 0 MPI_Sends
# the layout, rank 1 MPI_Recvs it into the same layout and sends it back)
# for several builds alternated within one run: every round starts every
# build once per layout group, in rotated order, each rank bound to its own
# core. Per build and layout it reports the median of the processes'
# median round trips and the fastest sample of all, and the ratio of the
# first build's time to each other build's (> 1: that build is faster).
#
#   BUILDS="m=mpich ddt=mpich:/tmp/lib-mpich.so d0=mpich:/tmp/lib-mpich.so:DDT_MPI_DIRECT=0" \
#     LAYOUTS="L5a:ML NAS_MG_y:ML" ROUNDS=3 REPS=24 bash interpose/bench/ppab.sh
#
# BUILDS: NAME=MPI[:LIB[:VAR=VALUE,...]] (MPI mpich or openmpi; LIB
# preloaded; the variables set for both ranks); the first is the reference.
# LAYOUTS: PREFIX:SIZES (ddtpp -f, -s). ROUNDS (3), REPS (ping-pong samples
# per process, 24), BIND (core; none: no binding), OUT (results directory),
# OFFSET (ddtpp -o: where buffers start past a page boundary, 16).
# ddtpp is built into OUT with layouts.h from cmd/ddt/internal/bench/ppgen.
# With 5 rounds or more, `awk -v mode=pp -v builds="$BUILDS" -f
# verdict.awk OUT/raw.tsv` tests each build against the first per layout
# (a rank-sum test of the processes' medians; an MPI-only second build is
# the A/A control).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-24}
OFFSET=${OFFSET:-16}
BIND=${BIND:-core}
read -r -a BL <<< "${BUILDS:?set BUILDS}"
read -r -a LL <<< "${LAYOUTS:?set LAYOUTS}"
OUT=${OUT:-"$HERE/results/ppab-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f "$OUT/layouts.h" ] || (cd "$ROOT" && go run ./cmd/ddt/internal/bench/ppgen -ddtbench medium,large) > "$OUT/layouts.h"
for m in mpich openmpi; do
    case " ${BUILDS} " in *"=$m"*) mpicc.$m -O2 -std=gnu11 -w -I"$OUT" "$HERE/ddtpp.c" -o "$OUT/ddtpp_$m" ;; esac
done

run() { # run NAME MPI LIB VARS PREFIX SIZES
    local name=$1 m=$2 lib=$3 vars=$4 e=() v
    if [ "$m" = mpich ]; then
        e=(-genv BENCH_IMPL "$name")
        [ "$BIND" != none ] && e+=(-bind-to "$BIND")
        [ -n "$lib" ] && e+=(-genv LD_PRELOAD "$lib")
        for v in ${vars//,/ }; do e+=(-genv "${v%%=*}" "${v#*=}"); done
        timeout 600 mpirun.mpich -np 2 "${e[@]}" "$OUT/ddtpp_mpich" -m pp -f "$5" -s "$6" -r "$REPS" -o "$OFFSET" </dev/null
    else
        e=(-x "BENCH_IMPL=$name")
        [ "$BIND" != none ] && e+=(--bind-to "$BIND")
        [ -n "$lib" ] && e+=(-x "LD_PRELOAD=$lib")
        for v in ${vars//,/ }; do e+=(-x "$v"); done
        timeout 600 mpirun.openmpi -np 2 "${e[@]}" "$OUT/ddtpp_openmpi" -m pp -f "$5" -s "$6" -r "$REPS" -o "$OFFSET" </dev/null
    fi
}

{
    echo "== ppab: $(date -u '+%Y-%m-%d %H:%M UTC'), ddt $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "builds: ${BUILDS}"
    echo "layouts: ${LAYOUTS}; rounds ${ROUNDS}, ${REPS} samples per process, bind ${BIND}, buffers ${OFFSET} bytes past a page"
} > "$OUT/header.txt"
: > "$OUT/raw.tsv"
nb=${#BL[@]} gi=0
for r in $(seq 1 "$ROUNDS"); do
    for l in "${LL[@]}"; do
        for ((j = 0; j < nb; j++)); do
            spec=${BL[$(( (gi + j) % nb ))]}
            name=${spec%%=*} rest=${spec#*=}
            IFS=: read -r m lib vars <<< "$rest"
            echo "round $r/$ROUNDS $l $name" >&2
            run "$name" "$m" "${lib:-}" "${vars:-}" "${l%%:*}" "${l#*:}" 2>>"$OUT/err" | grep '^P' >> "$OUT/raw.tsv" || true
        done
        gi=$((gi + 1))
    done
done
{
    cat "$OUT/header.txt"
    awk -F'\t' -v builds="${BUILDS}" -f "$HERE/ppab.awk" "$OUT/raw.tsv"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); raw: $OUT/raw.tsv"
} | tee "$OUT/table.txt"
