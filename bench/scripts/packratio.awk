# packratio.awk compares one build's pack and unpack times with the
# hand-written C's and MPICH's from the raw output of the anchors harness
# (the pack_ns and unpack_ns columns of the R lines), taking per build and
# layout the best (minimum) over the rounds, as run.sh's table does. Builds
# are told apart by their raw files' names (build B writes raw/B.rN.tsv),
# not by the impl column, so that several ddt builds in one run (main and
# an older commit, both printing "ddt") stay apart:
#
#	awk -F'\t' -v B=go -f bench/scripts/packratio.awk results/RUN/raw/*.tsv
#
# It prints one line per layout (B's time over C's, above 1: slower than C;
# MPICH's time over B's, above 1: B is faster), then the geometric means
# and the cells slower than C by more than 1.2x.
/^#cols/ {
	n = split($2, c, " ")
	for (i = 1; i <= n; i++) {
		if (c[i] == "pack_ns")
			pc = i
		if (c[i] == "unpack_ns")
			uc = i
	}
	next
}
/^R/ && pc > 0 {
	f = FILENAME
	sub(/.*\//, "", f)
	sub(/\.r[0-9]+\.tsv$/, "", f)
	k = $3 " " $4
	if (!(k in seen)) {
		seen[k] = 1
		order[++nk] = k
	}
	if (!((f, k) in p) || $pc + 0 < p[f, k])
		p[f, k] = $pc + 0
	if (!((f, k) in u) || $uc + 0 < u[f, k])
		u[f, k] = $uc + 0
}
END {
	m = 0
	slow = ""
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!((B, k) in p) || !(("manual", k) in p) || !(("mpich", k) in p))
			continue
		rp = p[B, k] / p["manual", k]
		ru = u[B, k] / u["manual", k]
		mp = p["mpich", k] / p[B, k]
		mu = u["mpich", k] / u[B, k]
		printf "%-8s %s/C pack %.2f unpack %.2f   MPICH/%s pack %.2f unpack %.2f\n", k, B, rp, ru, B, mp, mu
		sp += log(rp); su += log(ru); smp += log(mp); smu += log(mu); m++
		if (rp > 1.2)
			slow = slow " " k " pack " sprintf("%.2f", rp)
		if (ru > 1.2)
			slow = slow " " k " unpack " sprintf("%.2f", ru)
	}
	if (m == 0) {
		print "no layout with " B ", manual and mpich"
		exit 1
	}
	printf "geomean over %d layouts: %s/C pack %.3f unpack %.3f; MPICH/%s pack %.2f unpack %.2f\n", m, B, exp(sp / m), exp(su / m), B, exp(smp / m), exp(smu / m)
	printf "above 1.2x C:%s\n", slow == "" ? " none" : slow
}
