#!/usr/bin/env bash
# Speed of the ddt interposition library, in one run: MPI_Pack/MPI_Unpack
# and a 2-rank derived-datatype ping-pong, MPICH and Open MPI, each without
# and with the library preloaded.
#
#   bash interpose/bench/run.sh               # ROUNDS=2 by default
#   ROUNDS=1 GROUPS_="L1 L7" PPGROUPS_="L1" DDTBENCH=small bash interpose/bench/run.sh   # a short run
#
# Three parts, every build started once per round and layout group, the
# order rotated (the anchors harness's method, ../shared/anchors/mpipack):
#  1. the anchors harness itself (../shared/anchors/mpipack/mpipack.c,
#     compiled here from that path, never copied) on its layouts: builds
#     mpich, mpich+ddt, openmpi, openmpi+ddt (the +ddt builds are the same
#     binaries with LD_PRELOAD); its report.awk makes the table;
#  2. ddtpp -m pack (ddtpp.c, layouts.h from cmd/ddt/internal/bench/ppgen) on the
#     DDTBench layouts, in the harness's line format, through report.awk;
#  3. ddtpp -m pp under mpirun -np 2 on the harness's layouts and the
#     DDTBench layouts.
# Then summary.awk: per layout, pack and unpack time without / with the
# library (> 1: the library is faster) and the geometric means; the
# ping-pong round trip without / with, on messages of 64 KB and more.
#
# Environment: ROUNDS (2), GROUPS_ (harness prefixes, default all),
# PACK (1; 0: the ping-pong only), PPHSIZES (harness sizes in the
# ping-pong: SMLX), PPBEFORE (0; 1: the ping-pong also runs build m+ddt0,
# the library without pipelining: LIB0_MPICH / LIB0_OPENMPI if set, a
# library built before pipelining existed, else the same library with
# DDT_MPI_PIPELINE=0),
# PPGROUPS_ (ping-pong prefixes, default all), DDTBENCH (small,medium,large),
# PPDDTSIZES (DDTBench sizes in the ping-pong: ML), PPREPS (its samples: 6),
# MPIS ("mpich openmpi"), LIB_MPICH / LIB_OPENMPI (prebuilt libraries),
# ANCHORS (../shared/anchors), OUT (results directory).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ANCHORS=${ANCHORS:-$(cd "$ROOT/../../shared/anchors" 2>/dev/null && pwd || echo /work/shared/anchors)}
HARNESS=$ANCHORS/mpipack
[ -f "$HARNESS/mpipack.c" ] || { echo "run.sh: no $HARNESS/mpipack.c (set ANCHORS)" >&2; exit 1; }
ROUNDS=${ROUNDS:-2}
GROUPS_=${GROUPS_:-"L1 L2 L3 L4 L5 L6 L7 L8"}
DDTBENCH=${DDTBENCH:-small,medium,large}
PPDDTSIZES=${PPDDTSIZES:-ML} # DDTBench configurations in the ping-pong (small ones are < 64 KB)
PPREPS=${PPREPS:-6}          # ping-pong samples per process
PACK=${PACK:-1}
PPHSIZES=${PPHSIZES:-SMLX}
PPBEFORE=${PPBEFORE:-0}
read -r -a MPIS <<< "${MPIS:-mpich openmpi}"
OUT=${OUT:-"$HERE/results/$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT/raw" "$OUT/build"
B=$OUT/build
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
START=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)

CFLAGS="-O3 -march=native -std=gnu11 -w"
(cd "$ROOT" && go run ./cmd/ddt/internal/bench/ppgen -ddtbench "$DDTBENCH") > "$B/layouts.h"
DBIDS=$(awk -F'"' '/^    \{"/ && $2 !~ /^L[0-9]/ { split($2, a, "."); if (!(a[1] in s)) { s[a[1]] = 1; printf "%s ", a[1] } }' "$B/layouts.h")
PPGROUPS_=${PPGROUPS_:-"$GROUPS_ $DBIDS"}
for m in "${MPIS[@]}"; do
    cc=mpicc.$m
    $cc $CFLAGS "$HARNESS/mpipack.c" -o "$B/mpipack_$m"
    $cc -O2 -std=gnu11 -w -I"$B" "$HERE/ddtpp.c" -o "$B/ddtpp_$m"
    lib_var=LIB_${m^^}
    lib=${!lib_var:-}
    if [ -z "$lib" ]; then
        lib=$B/libddtmpi-$m.so
        bash "$ROOT/interpose/build.sh" "$m" "$lib"
    fi
    declare "LIB_$m=$lib"
done
BUILDS=()
for m in "${MPIS[@]}"; do BUILDS+=("$m" "$m+ddt"); done
NB=${#BUILDS[@]}
PPBUILDS=()
for m in "${MPIS[@]}"; do
    PPBUILDS+=("$m" "$m+ddt")
    [ "$PPBEFORE" = 1 ] && PPBUILDS+=("$m+ddt0")
done
NPB=${#PPBUILDS[@]}

# run BUILD CMD...: the command with the build's MPI and, for +ddt, the library
env_for() {
    local b=$1 m=${1%+ddt}
    local lv=LIB_$m
    if [ "$b" != "$m" ]; then echo "LD_PRELOAD=${!lv}"; fi
}
pp() {
    local b=$1 m=${1%%+*} lv=LIB_${1%%+*} lib; shift
    lib=${!lv}
    local -a vars=()
    if [ "$b" = "$m+ddt0" ]; then
        local l0=LIB0_${m^^}
        if [ -n "${!l0:-}" ]; then lib=${!l0}; else vars+=(DDT_MPI_PIPELINE 0); fi
    fi
    [ "$b" != "$m" ] && vars+=(LD_PRELOAD "$lib")
    local e=() i
    if [ "$m" = mpich ]; then
        e=(-genv BENCH_IMPL "$b")
        for ((i = 0; i < ${#vars[@]}; i += 2)); do e+=(-genv "${vars[i]}" "${vars[i + 1]}"); done
        mpirun.mpich -np 2 "${e[@]}" "$@" </dev/null
    else
        e=(-x "BENCH_IMPL=$b")
        for ((i = 0; i < ${#vars[@]}; i += 2)); do e+=(-x "${vars[i]}=${vars[i + 1]}"); done
        mpirun.openmpi --oversubscribe -np 2 "${e[@]}" "$@" </dev/null
    fi
}

{
    echo "== interpose/bench: MPI_Pack/Unpack and derived-datatype ping-pong, without and with libddtmpi ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo "ddt $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'); machine: nproc=$(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "packages: $(dpkg-query -W -f='${Package} ${Version}\n' libmpich-dev libopenmpi-dev 2>/dev/null | paste -sd, | sed 's/,/, /g')"
    echo "method: ${ROUNDS} round(s), each build once per layout group per round (order rotated); per process median of 12 samples >= 2.5 ms"
    echo "  (ping-pong: ${PPREPS} samples of >= 2.5 ms of round trips, harness sizes ${PPHSIZES}, DDTBench sizes ${PPDDTSIZES}); table: min over rounds"
    if [ "$PPBEFORE" = 1 ]; then
        if [ -n "${LIB0_MPICH:-}${LIB0_OPENMPI:-}" ]; then
            echo "  ping-pong builds also m+ddt0: the library without pipelining: LIB0_MPICH=${LIB0_MPICH:-} LIB0_OPENMPI=${LIB0_OPENMPI:-}"
        else
            echo "  ping-pong builds also m+ddt0: the library with DDT_MPI_PIPELINE=0"
        fi
    fi
    echo "  environment: DDT_MPI_PIPELINE=${DDT_MPI_PIPELINE:-default} DDT_MPI_PACKET=${DDT_MPI_PACKET:-default}"
} > "$OUT/header.txt"

gi=0
for r in $(seq 1 "$ROUNDS"); do
    for g in $GROUPS_ $DBIDS; do
        [ "$PACK" = 1 ] || break
        for ((j = 0; j < NB; j++)); do
            b=${BUILDS[$(( (gi + j) % NB ))]}
            m=${b%+ddt}
            echo "round $r/$ROUNDS pack $g $b" >&2
            if [[ "$g" =~ ^L[0-9] ]]; then
                env $(env_for "$b") "$B/mpipack_$m" -f "$g" 2>>"$OUT/raw/err" |
                    sed "s/^R\t$m\t/R\t$b\t/; s/^#impl\t$m\$/#impl\t$b/" >> "$OUT/raw/$b.r$r.tsv"
            else
                env $(env_for "$b") BENCH_IMPL="$b" "$B/ddtpp_$m" -m pack -f "$g" 2>>"$OUT/raw/err" >> "$OUT/raw/db-$b.r$r.tsv"
            fi
        done
        gi=$((gi + 1))
    done
    for g in $PPGROUPS_; do
        for ((j = 0; j < NPB; j++)); do
            b=${PPBUILDS[$(( (gi + j) % NPB ))]}
            echo "round $r/$ROUNDS ping-pong $g $b" >&2
            sz=$PPHSIZES
            [[ "$g" =~ ^L[0-9] ]] || sz=$PPDDTSIZES
            pp "$b" "$B/ddtpp_${b%%+*}" -m pp -f "$g" -s "$sz" -r "$PPREPS" 2>>"$OUT/raw/err" | grep '^P' >> "$OUT/raw/pp-$b.r$r.tsv" || true
        done
        gi=$((gi + 1))
    done
done

END=$(date +%s)
{
    cat "$OUT/header.txt"
    echo
    if [ "$PACK" = 1 ]; then
        echo "-- 1. anchors harness layouts (mpipack.c), times in µs per call, MB/s of packed data"
        awk -v ratios="$OUT/ratios.tsv" -f "$HARNESS/report.awk" "$OUT"/raw/mpich*.tsv "$OUT"/raw/openmpi*.tsv
        echo
        echo "-- 2. DDTBench layouts (ddtpp -m pack)"
        awk -v ratios="$OUT/ratios-db.tsv" -f "$HARNESS/report.awk" "$OUT"/raw/db-*.tsv
        echo
    fi
    echo "-- summary: without / with the library (> 1: faster with it), min over rounds"
    awk -f "$HERE/summary.awk" $(ls "$OUT"/raw/*.tsv)
    echo "run: $((END - START)) s wall; loadavg before $LOAD0, after $(cut -d' ' -f1-3 /proc/loadavg); raw data: $OUT"
} | tee "$OUT/table.txt"
