# Table of interpose/bench/cells.sh from its raw lines (build round id size
# packed pack_ns unpack_ns check); several runs' raw files may be concatenated
# when their round numbers differ (ROUND0).
BEGIN { FS = "\t" }
function med(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
    split($1, bm, "+"); m = bm[1]; c = $3 "\t" $4 "\t" $5
    if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
    if (!($1 in seenb)) { seenb[$1] = 1; builds[++nb] = $1 }
    P[$1, c] = P[$1, c] " " $6; U[$1, c] = U[$1, c] " " $7
    p[$1, c, $2] = $6; u[$1, c, $2] = $7; if ($2 > R) R = $2
    if ($8 != "ok") bad[$1, c] = $8
}
END {
    printf "%-20s %-2s %9s %-14s %9s %9s %9s %9s %7s %7s  %-11s %-11s\n", "layout", "sz", "bytes", "build", "pack_ns", "unpk_ns", "base_pk", "base_un", "pk", "unpk", "pk_range", "unpk_range"
    for (i = 1; i <= nc; i++) {
        c = cells[i]; split(c, f, "\t")
        for (k = 1; k <= nb; k++) {
            b = builds[k]; split(b, bm, "+"); m = bm[1]
            if (b == m || P[b, c] == "") continue
            mp = med(P[b, c]); mu = med(U[b, c]); bp = med(P[m, c]); bu = med(U[m, c])
            lo1 = lo2 = 1e9; hi1 = hi2 = 0
            for (r = 1; r <= R; r++) if ((b, c, r) in p && (m, c, r) in p && p[b, c, r] > 0 && u[b, c, r] > 0) {
                x = p[m, c, r] / p[b, c, r]; y = u[m, c, r] / u[b, c, r]
                if (x < lo1) lo1 = x; if (x > hi1) hi1 = x; if (y < lo2) lo2 = y; if (y > hi2) hi2 = y
            }
            printf "%-20s %-2s %9s %-14s %9.1f %9.1f %9.1f %9.1f %6.2f%s %6.2f%s  %.2f-%.2f  %.2f-%.2f%s\n", f[1], f[2], f[3], b, mp, mu, bp, bu, bp / mp, bp / mp < 1 ? "*" : " ", bu / mu, bu / mu < 1 ? "*" : " ", lo1, hi1, lo2, hi2, ((b, c) in bad || (m, c) in bad) ? "  CHECK " bad[b, c] bad[m, c] : ""
        }
    }
    print "(median over " R " rounds; pk, unpk: base / build, > 1 faster with the library, * below 1; ranges: per-round ratios)"
}
