# cycles.awk compares ddt's create+commit+free time with MPICH's from the
# raw output of the anchors harness (the cycle_ns column of the R lines of
# build/mpipack_mpich and build/mpipack_go = `ddt bench --mpipack`), taking
# per build and layout the best (minimum) over the rounds, as run.sh's
# table does:
#
#	awk -F'\t' -f bench/scripts/cycles.awk results/RUN/raw/*.tsv
#
# It prints one line per layout (ratio above 1: ddt is slower), then the
# geometric mean and the largest ratio.
/^#cols/ {
	n = split($2, c, " ")
	for (i = 1; i <= n; i++)
		if (c[i] == "cycle_ns")
			col = i
	next
}
/^R/ && col > 0 {
	k = $3 " " $4
	if (!(k in seen)) {
		seen[k] = 1
		order[++nk] = k
	}
	if (!(($2, k) in best) || $col + 0 < best[$2, k])
		best[$2, k] = $col + 0
}
END {
	m = 0
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(("mpich", k) in best) || !(("ddt", k) in best) || best["mpich", k] <= 0)
			continue
		r = best["ddt", k] / best["mpich", k]
		printf "%-7s MPICH %10.0f ns  ddt %10.0f ns  %5.2fx\n", k, best["mpich", k], best["ddt", k], r
		s += log(r)
		m++
		if (r > worst) {
			worst = r
			wk = k
		}
	}
	if (m > 0)
		printf "geomean %.2fx over %d layouts; largest %.2fx (%s)\n", exp(s / m), m, worst, wk
}
