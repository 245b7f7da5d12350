#!/usr/bin/env bash
# Runs a peer MPI library's own datatype tests with and without the ddt
# interposition library preloaded, and prints one table row per test.
# Nothing of the peers' code is in this project: the script takes the path
# of a checkout (a snapshot fetched by hand) and builds its tests in a
# scratch directory.
#
#   bash interpose/peers/run.sh mpich   /path/to/mpich-checkout   # test/mpi/datatype, MPICH (mpicc.mpich)
#   bash interpose/peers/run.sh openmpi /path/to/ompi-checkout    # ompi/test/datatype, Open MPI (mpicc.openmpi)
#
# Environment:
#   LIB=path.so    the library (default: built with interpose/build.sh)
#   REPEAT=n       runs of each test with and without it (default 1)
#   OUT=dir        build directory, logs and table (default: mktemp)
#   ONLY="a b"     only these tests
#   TIMEOUT=s      per run (default 120)
#
# MPICH: the tests its testlist.in runs with at most 4 processes, each with
# its testlist arguments; tests that call MPICH internals (MPIR_, MPID_,
# MPIX_, MPL_ after the preprocessor strips comments) and tests the
# testlist marks as needing more than 2 GB are left out, saying why. The
# MTest support files (test/mpi/util) are compiled with a small
# mpitestconf.h written here. Pass: exit 0 and a line " No Errors" (either
# case, as MPICH's runtests reads it).
# Open MPI: the tests of ompi/test/datatype that build against the
# installed mpi.h alone (an empty ompi_config.h, HAVE_CONFIG_H unset) and
# include none of Open MPI's internal headers; each runs as one process,
# as its Makefile.am runs it. Pass: exit 0.
#
# Output (stdout, and OUT/table.md): | test | np | without | with | ddt | note |
# where without/with are passes/runs and ddt is the statistics line summed
# over the ranks of the last run with the library (mirrored/fallback types,
# packs+unpacks, sends+recvs).
set -uo pipefail
if [ $# -ne 2 ] || { [ "$1" != mpich ] && [ "$1" != openmpi ]; }; then
    echo "usage: bash interpose/peers/run.sh mpich|openmpi CHECKOUT" >&2
    exit 2
fi
SUITE=$1
SRC=$(cd "$2" && pwd) || exit 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPEAT=${REPEAT:-1}
TIMEOUT=${TIMEOUT:-120}
OUT=${OUT:-$(mktemp -d /tmp/ddt-peers.XXXXXX)}
mkdir -p "$OUT/bin" "$OUT/log"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

if [ "$SUITE" = mpich ]; then
    CC=mpicc.mpich RUN=mpirun.mpich
else
    CC=mpicc.openmpi RUN=mpirun.openmpi
fi
command -v $CC >/dev/null || { echo "run.sh: $CC not found" >&2; exit 1; }
if [ -z "${LIB:-}" ]; then
    LIB=$OUT/libddtmpi-$SUITE.so
    bash "$ROOT/interpose/build.sh" "$SUITE" "$LIB" || exit 1
fi
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")

# launch NP ENV... -- EXE ARGS: the MPI's launcher with variables for the ranks
launch() {
    local np=$1; shift
    local env=()
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    if [ "$SUITE" = mpich ]; then
        local a=()
        for kv in "${env[@]}"; do a+=(-genv "${kv%%=*}" "${kv#*=}"); done
        timeout "$TIMEOUT" $RUN -np "$np" "${a[@]}" "$@" </dev/null
    else
        local a=()
        for kv in "${env[@]}"; do a+=(-x "$kv"); done
        timeout "$TIMEOUT" $RUN --oversubscribe -np "$np" "${a[@]}" "$@" </dev/null
    fi
}

# passed LOG RC: the suite's criterion, on stdout (stderr is LOG.err: the
# ranks' statistics lines must not split the " No Errors" line)
passed() {
    [ "$2" -eq 0 ] || return 1
    if [ "$SUITE" = mpich ]; then grep -qiE "^ *No errors *$" "$1"; fi
}

# stats LOG: the statistics lines summed
stats() {
    awk '/ddt-mpi:/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[2] != "") s[kv[1]] += kv[2] } ; n++ }
         END { if (n == 0) print "no statistics line"; else printf "%d/%d types, %d packs, %d msgs\n", s["mirrored"], s["fallback"], s["packs"] + s["unpacks"], s["sends"] + s["recvs"] }' "$1"
}

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); echo "| $1 | $2 | $3 | $4 | $5 | $6 |"; }

# runtest NAME NP EXE ARGS...
runtest() {
    local name=$1 np=$2; shift 2
    local without=0 with=0 i rc log
    for i in $(seq 1 "$REPEAT"); do
        log=$OUT/log/$name.np$np.without.$i
        launch "$np" -- "$@" >"$log" 2>"$log.err"; rc=$?
        passed "$log" $rc && without=$((without + 1))
        log=$OUT/log/$name.np$np.with.$i
        launch "$np" "LD_PRELOAD=$LIB" DDT_MPI_STATS=1 -- "$@" >"$log" 2>"$log.err"; rc=$?
        passed "$log" $rc && with=$((with + 1))
    done
    local note=""
    [ "$with" -lt "$without" ] && note="FEWER PASSES WITH THE LIBRARY: see $log"
    [ "$with" -gt "$without" ] && note="more passes with the library"
    row "$name${ARGS_NOTE:-}" "$np" "$without/$REPEAT" "$with/$REPEAT" "$(stats "$OUT/log/$name.np$np.with.$REPEAT.err")" "$note"
}

echo "| test | np | without | with | ddt (mirrored/fallback types, packs, msgs) | note |"
echo "|---|---|---|---|---|---|"

if [ "$SUITE" = mpich ]; then
    T=$SRC/test/mpi
    [ -f "$T/datatype/testlist.in" ] || { echo "run.sh: no test/mpi/datatype/testlist.in in $SRC" >&2; exit 1; }
    B=$OUT/build
    mkdir -p "$B"
    # the configure results the MTest support files need, for Debian's MPICH
    cat >"$B/mpitestconf.h" <<'EOF'
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_TYPE_CREATE_STRUCT 1
#define HAVE_MPI2_COMBINERS 1
#define HAVE_MPI_INTEGER16 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
EOF
    : >"$B/mtest_mpix.h"
    CFLAGS="-O1 -w -I$B -I$T/include"
    for u in mtest mtest_common mtest_single dtypes; do
        $CC $CFLAGS -c "$T/util/$u.c" -o "$B/$u.o" 2>"$OUT/log/util-$u.build" ||
            { echo "run.sh: $T/util/$u.c does not build, see $OUT/log/util-$u.build" >&2; exit 1; }
    done
    while read -r name np rest; do
        case "$name" in ''|'#'*) continue ;; esac
        [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]] && continue
        args="" mem=""
        for kv in $rest; do
            case "$kv" in
                arg=*) args="$args ${kv#arg=}" ;;
                mem=*) mem=${kv#mem=} ;;
            esac
        done
        ARGS_NOTE=""
        [ -n "$args" ] && ARGS_NOTE=" (arg$args)"
        if [ "$np" -gt 4 ]; then
            row "$name$ARGS_NOTE" "$np" - - - "not run: more than 4 processes"; continue
        fi
        if [ -n "$mem" ] && awk -v m="$mem" 'BEGIN { exit !(m > 2) }'; then
            row "$name$ARGS_NOTE" "$np" - - - "not run: the testlist says it needs ${mem} GB"; continue
        fi
        src=$T/datatype/$name.c
        if [ ! -f "$src" ]; then
            row "$name$ARGS_NOTE" "$np" - - - "not run: no C source (Fortran or C++ test)"; continue
        fi
        internals=$($CC -I"$B" -I"$T/include" -fpreprocessed -dD -E "$src" 2>/dev/null |
            grep -oE '\b(MPIR|MPID|MPIX|MPL)_[A-Za-z0-9_]+[[:space:]]*\(' | grep -v '^MPIX_' | sort -u | tr -d '( ' | paste -sd, -)
        # an extern declaration of an internal that is never called is fine
        if [ -n "$internals" ]; then
            used=""
            for f in ${internals//,/ }; do
                $CC -I"$B" -I"$T/include" -fpreprocessed -dD -E "$src" 2>/dev/null | grep -v "^extern" | grep -q "\b$f[[:space:]]*(" && used="$used $f"
            done
            if [ -n "$used" ]; then
                row "$name$ARGS_NOTE" "$np" - - - "not run: calls MPICH internals:$used"; continue
            fi
        fi
        exe=$OUT/bin/$name
        if [ ! -x "$exe" ]; then
            if ! $CC $CFLAGS "$src" "$B/mtest.o" "$B/mtest_common.o" "$B/mtest_single.o" "$B/dtypes.o" -lm -o "$exe" >"$OUT/log/$name.build" 2>&1; then
                why=$(grep -m1 -E "error|undefined reference" "$OUT/log/$name.build" | sed 's/^[^ ]*: //' | cut -c1-90)
                row "$name$ARGS_NOTE" "$np" - - - "not built against Debian's MPICH: $why"; continue
            fi
        fi
        # shellcheck disable=SC2086
        runtest "$name" "$np" "$exe" $args
    done <"$T/datatype/testlist.in"
else
    D=$SRC/ompi/test/datatype
    [ -d "$D" ] || { echo "run.sh: no ompi/test/datatype in $SRC" >&2; exit 1; }
    B=$OUT/build
    mkdir -p "$B"
    : >"$B/ompi_config.h"
    for src in "$D"/*.c; do
        name=$(basename "$src" .c)
        [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]] && continue
        grep -q "int main" "$src" || continue # support files (ddt_lib.c, datatype_corpus.c)
        extra=""
        grep -q '"datatype_corpus.h"' "$src" && extra="$D/datatype_corpus.c"
        exe=$OUT/bin/$name
        if ! $CC -O1 -w -I"$B" -I"$D" "$src" $extra -lm -o "$exe" >"$OUT/log/$name.build" 2>&1; then
            why=$(grep -m1 -E "fatal error|error:|undefined reference" "$OUT/log/$name.build" | sed 's/^[^ ]*: //' | cut -c1-90)
            case "$why" in
                *ompi/*|*opal/*|*"ompi_"*|*"opal_"*) why="uses Open MPI internals ($why)" ;;
                *) why="not built against Debian's Open MPI: $why" ;;
            esac
            row "$name" 1 - - - "not run: $why"; continue
        fi
        # linking is not enough: libmpi exports Open MPI's internals and
        # Debian installs their headers; a test including one is left out
        inner=$($CC -I"$B" -I"$D" -E -H "$src" 2>&1 >/dev/null | sed 's/^\.* //' | grep -v "^$D/" | grep -E '/(ompi|opal)/' | head -1)
        if [ -n "$inner" ]; then
            row "$name" 1 - - - "not run: uses Open MPI internals (includes $(basename "$inner"))"; continue
        fi
        ARGS_NOTE=""
        runtest "$name" 1 "$exe"
    done
fi
printf '%s\n' "| test | np | without | with | ddt (mirrored/fallback types, packs, msgs) | note |" "|---|---|---|---|---|---|" "${ROWS[@]}" >"$OUT/table.md"
echo "table: $OUT/table.md; logs: $OUT/log" >&2
