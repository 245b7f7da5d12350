# Table of interpose/bench/ab.sh from its raw lines (round A impl id size
# packed pmpi_pack pmpi_unpack pack unpack check); the raw files of several
# runs may be concatenated.
BEGIN { FS = "\t" }
function med(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function lo(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]; return m }
function hi(s,   n, a, i, m) { n = split(s, a, " "); m = a[1]; for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]; return m }
{
    c = $4 "\t" $5 "\t" $6
    if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
    if (!($3 in seenb)) { seenb[$3] = 1; builds[++nb] = $3 }
    if ($8 > 0 && $9 > 0 && $10 > 0) { P[$3, c] = P[$3, c] " " $7 / $9; U[$3, c] = U[$3, c] " " $8 / $10 }
    T[$3, c] = T[$3, c] " " $9; TU[$3, c] = TU[$3, c] " " $10; M[$3, c] = M[$3, c] " " $7; MU[$3, c] = MU[$3, c] " " $8
    if ($11 != "ok") bad[$3, c] = $11
}
END {
    printf "%-20s %-2s %9s %-13s %10s %10s %10s %10s %6s %6s  %-11s %-11s\n", "layout", "sz", "bytes", "build", "mpi_pk_ns", "mpi_un_ns", "pk_ns", "un_ns", "pk", "unpk", "pk_range", "unpk_range"
    for (i = 1; i <= nc; i++) {
        c = cells[i]; split(c, f, "\t")
        for (k = 1; k <= nb; k++) {
            b = builds[k]
            if (P[b, c] == "") continue
            p = med(P[b, c]); u = med(U[b, c])
            printf "%-20s %-2s %9s %-13s %10.1f %10.1f %10.1f %10.1f %5.2f%s %5.2f%s  %.2f-%.2f  %.2f-%.2f%s\n", f[1], f[2], f[3], b, med(M[b, c]), med(MU[b, c]), med(T[b, c]), med(TU[b, c]), p, p < 1 ? "*" : " ", u, u < 1 ? "*" : " ", lo(P[b, c]), hi(P[b, c]), lo(U[b, c]), hi(U[b, c]), (b, c) in bad ? "  CHECK " bad[b, c] : ""
        }
    }
    print "(medians over rounds of each process's medians; pk, unpk: PMPI_ / MPI_, > 1: the library is faster; +null: no library, both columns the MPI library)"

}
