#!/usr/bin/env bash
# abvar.sh: ddtpp -m ab (as ab.sh runs it) under one library and several
# settings of the environment, alternated, one process per round and
# setting, to see what a setting (DDT_JIT_PF=0, DDT_JIT_THROTTLE=0,
# DDT_NOJIT=1, ...) does to a cell. Run ab.sh first: it builds the ddtpp
# binary in its OUT directory.
#
#   bash interpose/bench/abvar.sh OUT MPI ROUNDS PREFIX:SIZE LIB:SETTING...
#
# SETTING is VAR=v or VAR=v,VAR2=w (X=1 for none). One line per round,
# setting and layout: pack and unpack as PMPI time / library time (> 1:
# the library is faster), then the four medians (ns) and the library's
# counts (DDT_MPI_STATS=1) on a line of their own.
set -euo pipefail
out=$1 m=$2 rounds=$3 cell=$4
shift 4
for r in $(seq 1 "$rounds"); do
    for ls in "$@"; do
        lib=${ls%%:*} set_=${ls#*:}
        env ${set_//,/ } DDT_MPI_STATS=1 LD_PRELOAD="$lib" "$out/ddtpp_$m" -m ab -f "${cell%%:*}" -s "${cell#*:}" 2>&1 |
            awk -v r="$r" -v s="$(basename "$lib") $set_" '
                $1 == "A" { printf "r%d %-36s %-18s %s pack %.2f unpack %.2f  (%s %s %s %s)\n", r, s, $3, $4, $6 / $8, $7 / $9, $6, $7, $8, $9 }
                /ddt-mpi/ { printf "   "; for (i = 1; i <= NF; i++) if ($i ~ /^(native|packs|unpacks)=/) printf " %s", $i; print "" }'
    done
done
