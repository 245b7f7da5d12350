# ppab.awk - the table of ppab.sh from ddtpp's "P" lines (build id size
# param bytes median_ns check min_ns samples): per layout and build the
# median of the processes' medians and the fastest sample, in µs; then the
# first build's times over each other build's (> 1: that build is faster,
# * below 1).
function med(s,    n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN {
    nb = split(builds, bs, " ")
    for (i = 1; i <= nb; i++) { sub(/=.*/, "", bs[i]) }
}
$1 == "P" {
    k = $3 "\t" $4 "\t" $6
    if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
    meds[k, $2] = meds[k, $2] " " $7
    if (!((k, $2) in mn) || $9 + 0 < mn[k, $2]) mn[k, $2] = $9 + 0
    if ($8 != "ok") bad[k, $2] = $8
}
END {
    printf "%-20s %-2s %9s", "layout", "sz", "bytes"
    for (i = 1; i <= nb; i++) printf " %12s", bs[i] " med/min"
    for (i = 2; i <= nb; i++) printf " %14s", bs[1] "/" bs[i]
    printf "\n"
    for (q = 1; q <= nk; q++) {
        k = keys[q]; split(k, f, "\t")
        printf "%-20s %-2s %9s", f[1], f[2], f[3]
        for (i = 1; i <= nb; i++) {
            b = bs[i]
            if ((k, b) in mn) { m[b] = med(meds[k, b]); printf " %7.0f/%-6.0f", m[b] / 1e3, mn[k, b] / 1e3 } else { m[b] = ""; printf " %14s", "-" }
        }
        for (i = 2; i <= nb; i++) {
            b = bs[i]
            if (m[b] != "" && m[bs[1]] != "") {
                r1 = m[bs[1]] / m[b]; r2 = mn[k, bs[1]] / mn[k, b]
                printf " %6.2f%s/%5.2f%s", r1, r1 < 1 ? "*" : " ", r2, r2 < 1 ? "*" : " "
            } else printf " %14s", "-"
        }
        for (i = 1; i <= nb; i++) if ((k, bs[i]) in bad) printf " CHECK(%s):%s", bs[i], bad[k, bs[i]]
        printf "\n"
    }
    print "(µs: median of the processes' medians / fastest sample; ratios: first build / this build, median/min, * below 1)"
    # per build: geometric means of the ratios and the layouts below 1
    # (by the median, by the fastest sample, by both) among those of
    # 64 KiB and more
    for (i = 2; i <= nb; i++) {
        b = bs[i]; n = 0; l1 = l2 = 0; bm = bn = both = 0
        for (q = 1; q <= nk; q++) {
            k = keys[q]; split(k, f, "\t")
            if (f[3] + 0 < 65536 || !((k, b) in mn) || !((k, bs[1]) in mn)) continue
            r1 = med(meds[k, bs[1]]) / med(meds[k, b]); r2 = mn[k, bs[1]] / mn[k, b]
            n++; l1 += log(r1); l2 += log(r2)
            bm += r1 < 1; bn += r2 < 1; both += r1 < 1 && r2 < 1
        }
        if (n) printf "%s/%s over %d layouts >= 64 KiB: geometric mean %.2fx (median), %.2fx (fastest); below 1: %d by the median, %d by the fastest sample, %d by both\n", bs[1], b, n, exp(l1 / n), exp(l2 / n), bm, bn, both
    }
}
