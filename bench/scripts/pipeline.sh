#!/bin/bash
# Pipelined data messages of comm/mpi, measured on both MPIs
# (docs/comm-mpi.md, "Pipelined messages"):
#
#   bench/scripts/pipeline.sh build DIR BASE     # test binaries and commbench of this tree, commbench of commit BASE
#   bench/scripts/measure.sh bench/scripts/pipeline.sh sweep DIR           # TestPipeSweep, both MPIs
#   bench/scripts/measure.sh bench/scripts/pipeline.sh ddtbench DIR LIB    # DDTBench ping-pong, LIB mpich or ompi
#   bench/scripts/pipeline.sh table DIR LIB                                # markdown table of the ddtbench run
#
# sweep: a vector of doubles (runs of RUN bytes, 8), messages of SIZES
# bytes, packed whole against pipelined in packets of PACKETS bytes (window
# 4), ROUNDS (15) alternated rounds, under mpirun -np 2, GOMAXPROCS=1.
# ddtbench: examples/commbench, CONFIG (large) layouts one at a time, the
# base build then this one (so both see the same load), ROUNDS (5)
# interleaved batches of mpi-datatype (Raw mode, MPI's datatype),
# comm-staged (zero-copy off: pipelined in this build, packed whole in
# the base) and comm-packed; this build also measures comm-whole
# (pipelining off). Extra environment (DDT_MPI_PIPE_MIN, DDT_MPI_PACKET)
# is passed to both MPIs.
set -euo pipefail
cmd=${1:?build, sweep, ddtbench or table}
dir=${2:?a directory}
mkdir -p "$dir"
OMPI="mpirun.openmpi --oversubscribe"
[ "$(id -u)" -eq 0 ] && OMPI="mpirun.openmpi --allow-run-as-root --oversubscribe"
PASS="-x GOMAXPROCS=1"
for v in DDT_MPI_PIPE_MIN DDT_MPI_PACKET DDT_MPI_PIPE_WINDOW DDT_MPI_PIPE_SWEEP DDT_MPI_PIPE_ROUNDS DDT_MPI_PIPE_RUN DDT_MPI_PIPE_SIZES DDT_MPI_PIPE_PACKETS; do
    [ -n "${!v:-}" ] && PASS="$PASS -x $v"
done
case $cmd in
build)
    base=${3:?a base commit}
    go test -c -tags mpi,mpich -o "$dir/mpich.test" ./comm/mpi
    go test -c -tags mpi -o "$dir/ompi.test" ./comm/mpi
    go build -tags mpi,mpich -o "$dir/new-mpich" ./examples/commbench
    go build -tags mpi -o "$dir/new-ompi" ./examples/commbench
    rm -rf "$dir/base-src" && mkdir -p "$dir/base-src"
    git archive "$base" | tar -x -C "$dir/base-src"
    (cd "$dir/base-src" && go build -tags mpi,mpich -o "$dir/base-mpich" ./examples/commbench &&
        go build -tags mpi -o "$dir/base-ompi" ./examples/commbench)
    rm -rf "$dir/base-src"
    { git log --oneline -1; echo "base $base"; } > "$dir/COMMIT"
    ;;
sweep)
    cd "$dir"
    date -u; uptime
    export DDT_MPI_PIPE_SWEEP=1 DDT_MPI_PIPE_ROUNDS=${ROUNDS:-15} DDT_MPI_PIPE_RUN=${RUN:-8}
    export DDT_MPI_PIPE_SIZES=${SIZES:-262144,393216,524288,786432,1048576} DDT_MPI_PIPE_PACKETS=${PACKETS:-65536}
    PASS="$PASS -x DDT_MPI_PIPE_SWEEP -x DDT_MPI_PIPE_ROUNDS -x DDT_MPI_PIPE_RUN -x DDT_MPI_PIPE_SIZES -x DDT_MPI_PIPE_PACKETS"
    timeout 120 mpirun.mpich -np 2 -env GOMAXPROCS 1 ./mpich.test -test.run TestPipeSweep -test.v 2>&1 | grep "µs"
    timeout 120 $OMPI -np 2 $PASS ./ompi.test -test.run TestPipeSweep -test.v 2>&1 | grep "µs"
    date -u; uptime
    ;;
ddtbench)
    lib=${3:?mpich or ompi}
    cd "$dir"
    date -u; uptime
    cfg=${CONFIG:-large}
    : > "$cfg-base-$lib.tsv"
    : > "$cfg-new-$lib.tsv"
    for L in WRF_y_vec WRF_x_vec WRF_y_sa WRF_x_sa MILC_su3_zd NAS_LU_x NAS_LU_y NAS_MG_x NAS_MG_y NAS_MG_z FFT2D SPECFEM3D_oc SPECFEM3D_cm SPECFEM3D_mt LAMMPS_full LAMMPS_atomic; do
        for b in base new; do
            M=mpi-datatype,comm-staged,comm-packed
            [ $b = new ] && M=mpi-datatype,comm-whole,comm-staged,comm-packed
            args="-config $cfg -filter $L -budget 4194304 -rounds ${ROUNDS:-5} -methods $M"
            if [ "$lib" = mpich ]; then
                timeout 60 mpirun.mpich -np 2 -env GOMAXPROCS 1 ./$b-mpich $args >> "$cfg-$b-$lib.tsv" 2>&1 || echo "$L $b: exit $?"
            else
                timeout 60 $OMPI -np 2 $PASS ./$b-ompi $args >> "$cfg-$b-$lib.tsv" 2>&1 || echo "$L $b: exit $?"
            fi
        done
    done
    date -u; uptime
    ;;
table)
    lib=${3:?mpich or ompi}
    python3 - "$dir/${CONFIG:-large}-base-$lib.tsv" "$dir/${CONFIG:-large}-new-$lib.tsv" <<'EOF'
import sys, math
def load(f):
    v = {}
    for line in open(f):
        p = line.rstrip('\n').split('\t')
        if p[0] == 'R':
            v.setdefault(p[2], {'bytes': int(p[4])})[p[5]] = float(p[6])
    return v
b, n = load(sys.argv[1]), load(sys.argv[2])
print('| layout | bytes | mpi-datatype | base: comm-staged (whole) | comm-whole | comm-staged (pipelined) | comm-packed | base staged / staged | whole / pipelined | mpi-datatype / comm-packed |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
g = [[], [], []]
for k, y in n.items():
    if k not in b:
        continue
    x = b[k]
    r = (x['comm-staged'] / y['comm-staged'], y['comm-whole'] / y['comm-staged'], y['mpi-datatype'] / y['comm-packed'])
    for i in range(3):
        g[i].append(math.log(r[i]))
    print(f"| {k} | {y['bytes']} | {y['mpi-datatype']:.0f} | {x['comm-staged']:.0f} | {y['comm-whole']:.0f} | {y['comm-staged']:.0f} | {y['comm-packed']:.0f} | {r[0]:.2f} | {r[1]:.2f} | {r[2]:.2f} |")
print('| geometric mean | | | | | | | ' + ' | '.join(f'{math.exp(sum(x) / len(x)):.2f}' for x in g) + ' |')
EOF
    ;;
*)
    echo "usage: $0 build|sweep|ddtbench|table DIR ..." >&2; exit 2 ;;
esac
