# cycles5.awk tabulates create+commit+free (cycle_ns of the R lines) of
# MPICH, Open MPI and three ddt builds from the raw output of the anchors
# harness: gobefore (the base), golib (the library changed, the base's
# driver) and go (build/mpipack_go = `ddt bench --mpipack`, whose rows say
# "ddt"); per build and layout the best (minimum) over the rounds, as
# run.sh's table takes it, and each ddt build's ratio to MPICH's time:
#
#	awk -F'\t' -f bench/scripts/cycles5.awk results/RUN/raw/*.tsv
#
# (bench/RESULTS.md §26). Ratios above 1: ddt is slower.
/^#cols/ { n = split($2, c, " "); for (i = 1; i <= n; i++) if (c[i] == "cycle_ns") col = i; next }
/^R/ && col > 0 {
	if ($2 == "ddt") $2 = "go"
	k = $3 " " $4
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	if (!(($2, k) in best) || $col + 0 < best[$2, k]) best[$2, k] = $col + 0
}
END {
	print "| layout | MPICH ns | Open MPI ns | main ns | ratio | library ns | ratio | + driver ns | ratio |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nk; i++) {
		k = order[i]; m = best["mpich", k]
		if (m <= 0) continue
		printf "| %s | %.0f | %.0f | %.0f | %.2fx | %.0f | %.2fx | %.0f | %.2fx |\n", k, m, best["openmpi", k], best["gobefore", k], best["gobefore", k] / m, best["golib", k], best["golib", k] / m, best["go", k], best["go", k] / m
		for (j = 1; j <= 3; j++) { b = (j == 1) ? "gobefore" : (j == 2) ? "golib" : "go"; s[b] += log(best[b, k] / m); if (best[b, k] / m > w[b]) { w[b] = best[b, k] / m; wk[b] = k } }
		cnt++
	}
	printf "| geomean (%d layouts) | | | | %.2fx | | %.2fx | | %.2fx |\n", cnt, exp(s["gobefore"] / cnt), exp(s["golib"] / cnt), exp(s["go"] / cnt)
	printf "| largest | | | | %.2fx (%s) | | %.2fx (%s) | | %.2fx (%s) |\n", w["gobefore"], wk["gobefore"], w["golib"], wk["golib"], w["go"], wk["go"]
}
