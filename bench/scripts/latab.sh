#!/bin/bash
# Usage: bench/scripts/latab.sh lat|self ROUNDS DIR A B
#
# A/B runs of comm/mpi's small-message timings (docs/comm-mpi.md, "Third
# pass"): for each round, for each library (MPICH, Open MPI), the test
# binaries DIR/A-LIB.test and DIR/B-LIB.test one after the other (LIB is
# mpich or ompi: go test -c -tags mpi,mpich / -tags mpi). "lat" runs
# TestLatency on 2 ranks and appends its lines to DIR/lat.txt, "self"
# runs TestSelfPing on 1 rank and appends to DIR/self.txt; each line is
# prefixed with the round, the library and the binary. Run it through
# bench/scripts/measure.sh, a few rounds per call (each call under 5
# minutes).
set -u
what=$1 rounds=$2 dir=$3 a=$4 b=$5
for round in $(seq 1 "$rounds"); do
  for lib in mpich ompi; do
    if [ $lib = mpich ]; then R="mpirun.mpich"; else R="mpirun.openmpi --allow-run-as-root --oversubscribe"; fi
    for x in "$a" "$b"; do
      case $what in
      lat) DDT_MPI_LATENCY=1 $R -np 2 "$dir/$x-$lib.test" -test.run 'TestLatency$' -test.v 2>&1 | grep " B:" | sed "s/^/$round $lib $x /" >> "$dir/lat.txt" ;;
      self) DDT_MPI_LATENCY=1 $R -np 1 "$dir/$x-$lib.test" -test.run 'TestSelfPing' -test.v 2>&1 | grep "self send" | sed "s/^/$round $lib $x /" >> "$dir/self.txt" ;;
      *) echo "usage: latab.sh lat|self ROUNDS DIR A B" >&2; exit 2 ;;
      esac
    done
  done
done
