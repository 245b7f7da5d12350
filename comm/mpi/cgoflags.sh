#!/bin/sh
# cgoflags.sh prints the CGO_CFLAGS and CGO_LDFLAGS of an MPI compiler
# wrapper, for MPI installations without a pkg-config file (Cray MPICH,
# Intel MPI, MVAPICH, Spack builds):
#
#	eval "$(comm/mpi/cgoflags.sh)"            # the mpicc on PATH
#	eval "$(comm/mpi/cgoflags.sh mpiicc)"     # another wrapper
#	go build -tags mpi,mpicc ./...
#
# Open MPI's wrappers answer -showme:compile and -showme:link; MPICH and
# its derivatives (Intel MPI, MVAPICH, Cray's cc) answer -show with the
# whole command line, whose -I, -D, -L, -l, -Wl and -pthread words are kept.
set -eu
CC=${1:-mpicc}
command -v "$CC" >/dev/null 2>&1 || { echo "cgoflags.sh: $CC not found" >&2; exit 1; }
if cflags=$("$CC" -showme:compile 2>/dev/null) && ldflags=$("$CC" -showme:link 2>/dev/null); then
	:
elif line=$("$CC" -show 2>/dev/null); then
	cflags="" ldflags=""
	set -f
	first=1
	for w in $line; do
		if [ $first = 1 ]; then first=0; continue; fi # the compiler itself
		case $w in
		-I*|-D*) cflags="$cflags $w" ;;
		-L*|-l*|-Wl,*) ldflags="$ldflags $w" ;;
		-pthread) cflags="$cflags $w"; ldflags="$ldflags $w" ;;
		esac
	done
	set +f
else
	echo "cgoflags.sh: $CC answers neither -showme:compile nor -show" >&2
	exit 1
fi
printf "export CGO_CFLAGS='%s'\nexport CGO_LDFLAGS='%s'\n" "$(echo $cflags)" "$(echo $ldflags)"
