#!/usr/bin/env bash
# build.sh builds the ddt MPI interposition library (contract:
# ../shared/spec/interpose.md; docs/interpose.md):
#
#	bash interpose/build.sh mpich   OUT.so
#	bash interpose/build.sh openmpi OUT.so
#
# The MPI's compiler and linker flags come from pkg-config (mpich, ompi-c)
# or, without a pkg-config file, from its mpicc wrapper (comm/mpi/cgoflags.sh).
# Nothing is written outside OUT.so and Go's caches.
set -euo pipefail
if [ $# -ne 2 ] || { [ "$1" != mpich ] && [ "$1" != openmpi ]; }; then
	echo "usage: bash interpose/build.sh mpich|openmpi OUT.so" >&2
	exit 2
fi
MPI=$1
OUT=$2
here=${0%/*}
[ "$here" = "$0" ] && here=.
ROOT=$(cd "$here/.." && pwd)

cflags="" ldflags=""
if [ "$MPI" = mpich ]; then
	pc=mpich wrappers="mpicc.mpich mpicc" define=MPICH
else
	pc=ompi-c wrappers="mpicc.openmpi mpicc" define=OPEN_MPI
fi
if pkg-config --exists "$pc" 2>/dev/null; then
	cflags=$(pkg-config --cflags "$pc")
	ldflags=$(pkg-config --libs "$pc")
else
	for w in $wrappers; do
		command -v "$w" >/dev/null 2>&1 || continue
		flags=$(sh "$ROOT/comm/mpi/cgoflags.sh" "$w" 2>/dev/null) || continue
		c=$(eval "$flags"; echo "$CGO_CFLAGS")
		l=$(eval "$flags"; echo "$CGO_LDFLAGS")
		# the wrapper must be this MPI's: its mpi.h defines MPICH or OPEN_MPI
		if printf '#include <mpi.h>\n#ifndef %s\n#error other MPI\n#endif\n' "$define" |
			${CC:-cc} $c -E -x c - >/dev/null 2>&1; then
			cflags=$c ldflags=$l
			break
		fi
	done
fi
if [ -z "$cflags$ldflags" ]; then
	echo "build.sh: $MPI is not installed (no pkg-config '$pc', no ${wrappers// / or } of $MPI)" >&2
	exit 1
fi

# asyncpreemptoff: the Go runtime of the library never signals its threads
# (SIGURG) to preempt them; mpirun, which loads the library too when
# LD_PRELOAD is set for it, would forward the signal to the job and say so.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(
	cd "$ROOT"
	CGO_ENABLED=1 CGO_CFLAGS="-O2 $cflags" CGO_LDFLAGS="$ldflags" \
		go build -buildmode=c-shared -tags ddtinterpose -trimpath -ldflags=-X=runtime.godebugDefault=asyncpreemptoff=1 -o "$TMP/libddtmpi.so" ./interpose/lib
)
mv -f "$TMP/libddtmpi.so" "$OUT"
