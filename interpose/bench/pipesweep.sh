#!/usr/bin/env bash
# pipesweep.sh - the derived-datatype ping-pong (ddtpp -m pp) with the
# library under several pipelining settings, in one run: DDT_MPI_PIPELINE
# (the threshold; 0 switches pipelining off) and DDT_MPI_PACKET (the packet
# size). Each setting is started once per round and layout, the order
# rotated; the table gives, per layout, the best round's round trip of
# each setting relative to pipelining off (> 1: faster than off).
#
#   bash interpose/bench/pipesweep.sh
#   ROUNDS=3 LAYOUTS="L6:S L7:M" SETTINGS="0:256k 256k:64k 256k:256k 256k:1m" MPIS=mpich bash interpose/bench/pipesweep.sh
#
# Environment: ROUNDS (3), LAYOUTS (id:size pairs of ppgen's layouts),
# SETTINGS (threshold:packet pairs; the first is the reference), MPIS
# ("mpich openmpi"), LIB_MPICH / LIB_OPENMPI (prebuilt libraries), PPREPS
# (ping-pong samples: 6), OUT (results directory).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROUNDS=${ROUNDS:-3}
LAYOUTS=${LAYOUTS:-"L6:S LAMMPS_full.send:M L7:M SPECFEM3D_cm.send:L L5a:L"}
SETTINGS=${SETTINGS:-"0:256k 96k:64k 256k:64k 256k:256k 256k:1m"}
PPREPS=${PPREPS:-6}
read -r -a MPIS <<< "${MPIS:-mpich openmpi}"
read -r -a SET <<< "$SETTINGS"
OUT=${OUT:-"$HERE/results/sweep-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd "$ROOT" && go run ./cmd/ddt/internal/bench/ppgen -ddtbench small,medium,large) > "$OUT/layouts.h"
for m in "${MPIS[@]}"; do
    mpicc.$m -O2 -std=gnu11 -w -I"$OUT" "$HERE/ddtpp.c" -o "$OUT/ddtpp_$m"
    lv=LIB_${m^^}
    if [ -z "${!lv:-}" ]; then
        bash "$ROOT/interpose/build.sh" "$m" "$OUT/libddtmpi-$m.so"
        declare "LIB_${m^^}=$OUT/libddtmpi-$m.so"
    fi
done
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
n=${#SET[@]}
i=0
for r in $(seq 1 "$ROUNDS"); do
    for lay in $LAYOUTS; do
        id=${lay%%:*} sz=${lay#*:}
        for m in "${MPIS[@]}"; do
            lv=LIB_${m^^}
            for ((j = 0; j < n; j++)); do
                s=${SET[$(( (i + j) % n ))]}
                th=${s%%:*} pk=${s#*:}
                echo "round $r/$ROUNDS $m $id/$sz pipeline=$th packet=$pk" >&2
                if [ "$m" = mpich ]; then
                    mpirun.mpich -np 2 -genv BENCH_IMPL "$m@$s" -genv LD_PRELOAD "${!lv}" -genv DDT_MPI_PIPELINE "$th" \
                        -genv DDT_MPI_PACKET "$pk" "$OUT/ddtpp_$m" -m pp -f "$id" -s "$sz" -r "$PPREPS" </dev/null
                else
                    mpirun.openmpi --oversubscribe -np 2 -x "BENCH_IMPL=$m@$s" -x "LD_PRELOAD=${!lv}" -x "DDT_MPI_PIPELINE=$th" \
                        -x "DDT_MPI_PACKET=$pk" "$OUT/ddtpp_$m" -m pp -f "$id" -s "$sz" -r "$PPREPS" </dev/null
                fi 2>>"$OUT/err" | grep '^P' | grep -v "^P.*\.recv" >> "$OUT/raw.tsv" || true
            done
            i=$((i + 1))
        done
    done
done
{
    echo "== pipesweep: ddtpp -m pp with the library, DDT_MPI_PIPELINE:DDT_MPI_PACKET settings ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo "ddt $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'); nproc=$(nproc); ${ROUNDS} rounds, best round; loadavg before $LOAD0, after $(cut -d' ' -f1-3 /proc/loadavg)"
    awk -F'\t' -v sets="$SETTINGS" '
        { split($2, a, "@"); m = a[1]; s = a[2]; k = m SUBSEP $3 SUBSEP $4
          if (!(k in seen)) { seen[k] = 1; keys[++nk] = k; bytes[k] = $6 }
          v = $7 + 0; if (!((k, s) in best) || v < best[k, s]) best[k, s] = v
          if ($8 != "ok") bad[k] = $8 }
        END {
            ns = split(sets, S, " ")
            printf "%-8s %-22s %-2s %10s %12s", "mpi", "layout", "sz", "bytes", S[1] " (us)"
            for (i = 2; i <= ns; i++) printf " %10s", S[i]
            printf "\n"
            for (j = 1; j <= nk; j++) {
                k = keys[j]; split(k, f, SUBSEP)
                printf "%-8s %-22s %-2s %10d %12.1f", f[1], substr(f[2], 1, 22), f[3], bytes[k], best[k, S[1]] / 1000
                for (i = 2; i <= ns; i++) printf " %10s", ((k, S[i]) in best) ? sprintf("%.2f", best[k, S[1]] / best[k, S[i]]) : "-"
                printf "\n"
            }
            for (k in bad) print "CHECK FAILED: " k ": " bad[k]
        }' "$OUT/raw.tsv"
    echo "(columns after the first: round trip of the first setting / of that setting; > 1: faster)"
} | tee "$OUT/table.txt"
