# verdict.awk - is the library slower than the MPI library on a cell, or
# only as far as the machine's noise goes? One verdict per cell from the
# raw files of ab.sh (mode=ab) or ppab.sh (mode=pp), by a one-sided
# Mann-Whitney rank-sum test of the library's samples against a null
# sample of the same cell taken in the same run:
#
#   mode=ab: a sample is one process's median ratio PMPI / library (pack
#   and unpack separately); the null samples are the runs without a
#   library (ab.sh NULL=1: both columns the MPI library), so a ratio's
#   spread around 1 is the method's own.
#   mode=pp: a sample is one process's median round trip; the null is the
#   first build of BUILDS (the MPI library alone), each other build is
#   tested against it (a second MPI-only build, like m2, is the A/A
#   control: its verdicts show how often noise alone says "slower").
#
#   awk -v mode=ab -f verdict.awk all.tsv [more.tsv ...]
#   awk -v mode=pp -v builds="m m2 new" -f verdict.awk raw.tsv [...]
#
# A cell is "slower" when the library's samples rank below the null's
# (pack/unpack ratios) or above them (round trips) with p < alpha (0.05;
# -v alpha=) and its median is on the wrong side of the null's; "faster"
# the other way round; else "tie". p is exact (midranks, all splits
# enumerated) up to 24 samples in all, else the normal approximation.
# Summary lines per build: the count of each verdict.
BEGIN {
    FS = "\t"
    if (alpha == "") alpha = 0.05
    if (mode == "pp") { nb = split(builds, bs, " "); for (i = 1; i <= nb; i++) sub(/=.*/, "", bs[i]) }
}
function med(s,    n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# plow(x, y): one-sided p that the samples x (space-separated) rank below y.
function plow(x, y,    a, b, n1, n2, n, v, g, i, j, t, r, w, s, tot, cnt, f, k, mu, sd, tie, z, lim) {
    n1 = split(x, a, " "); n2 = split(y, b, " "); n = n1 + n2
    if (n1 == 0 || n2 == 0) return 1
    for (i = 1; i <= n1; i++) { v[i] = a[i] + 0; g[i] = 1 }
    for (i = 1; i <= n2; i++) { v[n1 + i] = b[i] + 0; g[n1 + i] = 0 }
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t; t = g[j]; g[j] = g[j - 1]; g[j - 1] = t
    }
    # doubled midranks (integers), and the rank sum of x
    tie = 0
    for (i = 1; i <= n; i = j) {
        for (j = i + 1; j <= n && v[j] == v[i]; j++) ;
        for (k = i; k < j; k++) r[k] = i + j - 1
        tie += (j - i) ^ 3 - (j - i)
    }
    w = 0
    for (i = 1; i <= n; i++) if (g[i]) w += r[i]
    if (n <= 24) {
        # f[k, s]: the splits of k of the values seen so far with doubled rank sum s
        delete f; f[0, 0] = 1; lim = 0
        for (i = 1; i <= n; i++) {
            lim += r[i]
            for (k = (i < n1 ? i : n1); k >= 1; k--) for (s = lim; s >= r[i]; s--) if ((k - 1, s - r[i]) in f) f[k, s] += f[k - 1, s - r[i]]
        }
        tot = 0; cnt = 0
        for (s = 0; s <= lim; s++) if ((n1, s) in f) { tot += f[n1, s]; if (s <= w) cnt += f[n1, s] }
        return cnt / tot
    }
    mu = n1 * (n + 1); sd = 2 * sqrt(n1 * n2 / 12 * ((n + 1) - tie / (n * (n - 1))))
    if (sd == 0) return 1
    z = (w - mu + 1) / sd
    return 0.5 * erfc(-z / sqrt(2))
}
function erfc(x,    t, y) { # Numerical Recipes' erfc approximation, relative error < 1.2e-7
    t = 1 / (1 + 0.5 * (x < 0 ? -x : x))
    y = t * exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
    return x >= 0 ? y : 2 - y
}
function verdict(x, y, hib,    mx, my, pl, ph) {
    mx = med(x); my = med(y); pl = plow(x, y); ph = plow(y, x)
    P = hib ? ph : pl; Q = hib ? pl : ph
    if (P < alpha && (hib ? mx > my : mx < my)) return "slower"
    if (Q < alpha && (hib ? mx < my : mx > my)) return "faster"
    return "tie"
}
mode == "ab" && $2 == "A" {
    c = $4 "\t" $5 "\t" $6; b = $3
    if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
    if (b ~ /\+null$/) { m = b; sub(/\+null$/, "", m); nullb[m] = b } else if (!(b in seenb)) { seenb[b] = 1; libs[++nl] = b }
    if ($9 > 0 && $10 > 0) { PK[b, c] = PK[b, c] " " $7 / $9; UN[b, c] = UN[b, c] " " $8 / $10 }
}
mode == "pp" && $1 == "P" {
    c = $3 "\t" $4 "\t" $6
    if (!(c in seen)) { seen[c] = 1; cells[++nc] = c }
    T[$2, c] = T[$2, c] " " $7
}
END {
    if (mode == "ab") {
        printf "%-20s %-2s %9s %-16s %6s %6s %7s %-7s %6s %6s %7s %-7s\n", "layout", "sz", "bytes", "build", "pk", "null", "p", "pack", "unpk", "null", "p", "unpack"
        for (q = 1; q <= nl; q++) {
            b = libs[q]; m = b; sub(/\+.*/, "", m); nb0 = nullb[m]
            if (nb0 == "") continue
            for (i = 1; i <= nc; i++) {
                c = cells[i]
                if (PK[b, c] == "" || PK[nb0, c] == "") continue
                split(c, f, "\t")
                v1 = verdict(PK[b, c], PK[nb0, c], 0); p1 = P
                v2 = verdict(UN[b, c], UN[nb0, c], 0); p2 = P
                cnt[b, v1]++; cnt[b, v2]++
                printf "%-20s %-2s %9s %-16s %6.3f %6.3f %7.4f %-7s %6.3f %6.3f %7.4f %-7s\n", f[1], f[2], f[3], b, med(PK[b, c]), med(PK[nb0, c]), p1, v1, med(UN[b, c]), med(UN[nb0, c]), p2, v2
            }
            printf "# %s: %d cells x {pack, unpack}: %d faster, %d tie, %d slower (alpha %s)\n", b, (cnt[b, "faster"] + cnt[b, "tie"] + cnt[b, "slower"]) / 2, cnt[b, "faster"], cnt[b, "tie"], cnt[b, "slower"], alpha
        }
    } else {
        printf "%-20s %-2s %9s %-6s %9s %9s %7s %s\n", "layout", "sz", "bytes", "build", "ref_us", "us", "p", "verdict"
        for (q = 2; q <= nb; q++) {
            b = bs[q]
            for (i = 1; i <= nc; i++) {
                c = cells[i]
                if (T[b, c] == "" || T[bs[1], c] == "") continue
                split(c, f, "\t")
                if (f[3] < 65536) continue
                v = verdict(T[b, c], T[bs[1], c], 1); cnt[b, v]++
                printf "%-20s %-2s %9s %-6s %9.1f %9.1f %7.4f %s\n", f[1], f[2], f[3], b, med(T[bs[1], c]) / 1e3, med(T[b, c]) / 1e3, P, v
            }
            printf "# %s against %s, %d layouts >= 64 KiB: %d faster, %d tie, %d slower (alpha %s)\n", b, bs[1], cnt[b, "faster"] + cnt[b, "tie"] + cnt[b, "slower"], cnt[b, "faster"], cnt[b, "tie"], cnt[b, "slower"], alpha
        }
    }
}
