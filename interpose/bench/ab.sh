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
# round A impl id size packed ppack punpack pack unpack check
awk -F'\t' '
function med(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function lo(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
function hi(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]; return m }
{
    c = $4 "\t" $5 "\t" $6
    if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
    if (!($3 in seenb)) { seenb[$3] = 1; builds[++nb] = $3 }
    if ($8 > 0 && $9 > 0 && $10 > 0) { P[$3, c] = P[$3, c] " " $7 / $9; U[$3, c] = U[$3, c] " " $8 / $10 }
    T[$3, c] = T[$3, c] " " $9; TU[$3, c] = TU[$3, c] " " $10; M[$3, c] = M[$3, c] " " $7; MU[$3, c] = MU[$3, c] " " $8
    if ($11 != "ok") bad[$3, c] = $11
}
END {
    printf "%-20s %-2s %9s %-13s %10s %10s %10s %10s %6s %6s  %-11s %-11s\n", "layout", "sz", "bytes", "build", "mpi_pk_ns", "mpi_un_ns", "pk_ns", "un_ns", "pk", "unpk", "pk_range", "unpk_range"
    for (i = 1; i <= nc; i++) {
        c = cells[i]; split(c, f, "\t")
        for (k = 1; k <= nb; k++) {
            b = builds[k]
            if (P[b, c] == "") continue
            p = med(P[b, c]); u = med(U[b, c])
            printf "%-20s %-2s %9s %-13s %10.1f %10.1f %10.1f %10.1f %5.2f%s %5.2f%s  %.2f-%.2f  %.2f-%.2f%s\n", f[1], f[2], f[3], b, med(M[b, c]), med(MU[b, c]), med(T[b, c]), med(TU[b, c]), p, p < 1 ? "*" : " ", u, u < 1 ? "*" : " ", lo(P[b, c]), hi(P[b, c]), lo(U[b, c]), hi(U[b, c]), (b, c) in bad ? "  CHECK " bad[b, c] : ""
        }
    }
    print "(medians over rounds of each process'"'"'s medians; pk, unpk: PMPI_ / MPI_, > 1: the library is faster; +null: no library, both columns the MPI library)"
}' "$OUT/all.tsv" | tee "$OUT/table.txt"
echo "raw: $OUT/all.tsv" >&2
