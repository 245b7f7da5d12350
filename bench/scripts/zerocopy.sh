#!/bin/bash
# Zero-copy (direct) data messages of comm/mpi, measured on both MPIs
# (docs/comm-mpi.md, "Zero-copy data messages"):
#
#   bench/scripts/zerocopy.sh build DIR     # test binaries and commbench, both MPIs
#   bench/scripts/measure.sh bench/scripts/zerocopy.sh run DIR    # prioritized, about 2 minutes
#   bench/scripts/zerocopy.sh table DIR     # the sweep lines and markdown tables
#
# run: TestDirectSweep (a vector of doubles, runs of 8 B to 4 KiB, messages
# of 16 KiB to 1 MiB: staged, direct, Native) with ROUNDS (15) alternated
# rounds, then the DDTBench ping-pong (examples/commbench, CONFIG medium)
# with CBROUNDS (21) interleaved batches of mpi-datatype, ddt-pack and the
# comm/mpi variants, under mpirun -np 2, GOMAXPROCS=1.
set -euo pipefail
cmd=${1:?build, run or table}
dir=${2:?a directory}
mkdir -p "$dir"
M=mpi-datatype,ddt-pack,comm-staged,comm-packed,comm-direct1,comm-native,comm-native-direct
OMPI="mpirun.openmpi --oversubscribe"
[ "$(id -u)" -eq 0 ] && OMPI="mpirun.openmpi --allow-run-as-root --oversubscribe"
case $cmd in
build)
    go test -c -tags mpi,mpich -o "$dir/mpich.test" ./comm/mpi
    go test -c -tags mpi -o "$dir/ompi.test" ./comm/mpi
    go build -tags mpi,mpich -o "$dir/cb-mpich" ./examples/commbench
    go build -tags mpi -o "$dir/cb-ompi" ./examples/commbench
    git log --oneline -1 > "$dir/COMMIT"
    ;;
run)
    cd "$dir"
    R=${ROUNDS:-15} CB=${CBROUNDS:-21} C=${CONFIG:-medium}
    date -u; uptime
    DDT_MPI_DIRECT_SWEEP=1 DDT_MPI_DIRECT_ROUNDS=$R timeout 60 mpirun.mpich -np 2 -env GOMAXPROCS 1 ./mpich.test -test.run TestDirectSweep -test.v > sweep-mpich.txt 2>&1
    DDT_MPI_DIRECT_SWEEP=1 DDT_MPI_DIRECT_ROUNDS=$R timeout 60 $OMPI -np 2 -x GOMAXPROCS=1 -x DDT_MPI_DIRECT_SWEEP -x DDT_MPI_DIRECT_ROUNDS ./ompi.test -test.run TestDirectSweep -test.v > sweep-ompi.txt 2>&1
    date -u; uptime
    timeout 90 mpirun.mpich -np 2 -env GOMAXPROCS 1 ./cb-mpich -config "$C" -budget 4194304 -rounds "$CB" -methods $M > cb-mpich.tsv 2>&1 || echo "commbench MPICH: exit $?"
    timeout 90 $OMPI -np 2 -x GOMAXPROCS=1 ./cb-ompi -config "$C" -budget 4194304 -rounds "$CB" -methods $M > cb-ompi.tsv 2>&1 || echo "commbench Open MPI: exit $?"
    date -u; uptime
    ;;
table)
    grep -h "µs" "$dir"/sweep-*.txt | sed 's/ *\[.*//; s/.*direct_test.go:[0-9]*: //'
    for f in "$dir"/cb-mpich.tsv "$dir"/cb-ompi.tsv; do
        awk -F'\t' '$1=="R"{k=$3" "$4; if(!(k in seen)){seen[k]=1; order[++n]=k; bytes[k]=$5}; v[k,$6]=$7; lib=$2}
        END{printf "\n%s, µs per round trip (median of the interleaved batches)\n\n", lib
            printf "| layout | size | bytes | mpi-datatype | ddt-pack | comm-staged | comm-packed | comm-direct1 | comm-native | comm-native-direct | staged / packed | staged / direct1 | mpi-datatype / packed |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            for(i=1;i<=n;i++){k=order[i]; split(k,a," ")
                printf "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n", a[1],a[2],bytes[k],v[k,"mpi-datatype"],v[k,"ddt-pack"],v[k,"comm-staged"],v[k,"comm-packed"],v[k,"comm-direct1"],v[k,"comm-native"],v[k,"comm-native-direct"],v[k,"comm-staged"]/v[k,"comm-packed"],v[k,"comm-staged"]/v[k,"comm-direct1"],v[k,"mpi-datatype"]/v[k,"comm-packed"]}}' "$f"
    done
    ;;
*)
    echo "usage: $0 build|run|table DIR" >&2; exit 2 ;;
esac
