# summary.awk - the library's speed-up from interpose/bench/run.sh's raw
# files: "R" lines (the anchors harness's format: impl id size ... packed
# memcpy_ns pack_ns unpack_ns ...) and "P" lines of ddtpp -m pp (impl id size
# param packed rtt_ns check). Per (build, layout, size) the minimum over the
# rounds; then per MPI m and layout: time of m / time of m+ddt (> 1: the
# library is faster), for pack, unpack and the ping-pong round trip, with
# the geometric means and the cells below 1 (ping-pong: of messages of
# 64 KB and more, the target). With builds m+ddt0 (run.sh PPBEFORE=1: the
# library without pipelining) the ping-pong also has the column pp0 (m /
# m+ddt0, before pipelining) and pipe (m+ddt0 / m+ddt: > 1, pipelining is
# faster), summed up for the messages that are pipelined (more than 256
# KiB, the default threshold) and the others of 64 KB and more.
BEGIN { FS = "\t" }
function keep(arr, k, v) { if (!(k in arr) || v < arr[k]) arr[k] = v }
$1 == "R" {
    k = $3 SUBSEP $4
    if (!(k in rseen)) { rseen[k] = 1; rkeys[++nr] = k; rbytes[k] = $8 }
    keep(pack, $2 SUBSEP k, $10); keep(unpack, $2 SUBSEP k, $11)
    if ($15 != "ok") bad[$2 " " $3 " " $4] = $15
    impls[$2] = 1
}
$1 == "P" {
    k = $3 SUBSEP $4
    if (!(k in pseen)) { pseen[k] = 1; pkeys[++np] = k; pbytes[k] = $6 }
    keep(rtt, $2 SUBSEP k, $7)
    if ($8 != "ok") bad[$2 " pp " $3 " " $4] = $8
    impls[$2] = 1
}
function ratio(a, m, k) { return ratio2(a, m, m "+ddt", k) }
function ratio2(a, m, w, k,   x, y) {
    x = (m SUBSEP k) in a ? a[m SUBSEP k] : -1
    y = (w SUBSEP k) in a ? a[w SUBSEP k] : -1
    return (x > 0 && y > 0) ? x / y : -1
}
function cell(v) { return v < 0 ? "-" : sprintf(v < 1 ? "%.2f*" : "%.2f", v) }
END {
    nm = 0
    for (m in impls) if (m !~ /\+ddt$/ && ((m "+ddt") in impls)) mpis[++nm] = m
    # stable order: mpich first
    if (nm == 2 && mpis[1] != "mpich") { t = mpis[1]; mpis[1] = mpis[2]; mpis[2] = t }
    printf "%-22s %-2s %10s", "layout", "sz", "bytes"
    for (i = 1; i <= nm; i++) {
        has0[mpis[i]] = (mpis[i] "+ddt0") in impls
        printf "  %8s %8s %8s", mpis[i] " pk", "unpk", "pp"
        if (has0[mpis[i]]) printf " %6s %6s", "pp0", "pipe"
    }
    printf "\n"
    n = nr
    for (j = 1; j <= np; j++) if (!(pkeys[j] in rseen)) { rkeys[++n] = pkeys[j]; rbytes[pkeys[j]] = pbytes[pkeys[j]] }
    for (j = 1; j <= n; j++) {
        k = rkeys[j]; split(k, f, SUBSEP)
        printf "%-22s %-2s %10d", substr(f[1], 1, 22), f[2], rbytes[k]
        for (i = 1; i <= nm; i++) {
            m = mpis[i]
            a = ratio(pack, m, k); b = ratio(unpack, m, k); c = ratio(rtt, m, k)
            printf "  %8s %8s %8s", cell(a), cell(b), cell(c)
            if (has0[m]) {
                c0 = ratio2(rtt, m, m "+ddt0", k); g = ratio2(rtt, m "+ddt0", m "+ddt", k)
                printf " %6s %6s", cell(c0), cell(g)
                if (c0 > 0 && rbytes[k] >= 65536) { l0[m] += log(c0); n0[m]++; if (c0 < 1) below0[m] = below0[m] " " f[1] "/" f[2] }
                if (g > 0 && rbytes[k] > 262144) { lgp[m] += log(g); ngp[m]++; if (g < 1) gbelow[m] = gbelow[m] " " f[1] "/" f[2] }
                if (g > 0 && rbytes[k] >= 65536 && rbytes[k] <= 262144) { lgs[m] += log(g); ngs[m]++ }
            }
            grp = f[1] ~ /^L[0-9]/ ? "harness" : "DDTBench"
            if (a > 0) { lp[m] += log(a); npk[m]++; lg[m, grp] += log(a); ng[m, grp]++; if (a < 1) below[m] = below[m] " " f[1] "/" f[2] "(pack)" }
            if (b > 0) { lp[m] += log(b); npk[m]++; lg[m, grp] += log(b); ng[m, grp]++; if (b < 1) below[m] = below[m] " " f[1] "/" f[2] "(unpack)" }
            if (c > 0 && rbytes[k] >= 65536) { lq[m] += log(c); nq[m]++; if (c < 1) ppbelow[m] = ppbelow[m] " " f[1] "/" f[2] }
            if (c > 0) { lqa[m] += log(c); nqa[m]++ }
        }
        printf "\n"
    }
    print "(* below 1: slower with the library)"
    for (i = 1; i <= nm; i++) {
        m = mpis[i]
        printf "%s: pack+unpack geometric mean %.2fx over %d cells (harness %.2fx, DDTBench %.2fx); cells below 1: %d%s\n", m,
            npk[m] ? exp(lp[m] / npk[m]) : 0, npk[m], ng[m, "harness"] ? exp(lg[m, "harness"] / ng[m, "harness"]) : 0,
            ng[m, "DDTBench"] ? exp(lg[m, "DDTBench"] / ng[m, "DDTBench"]) : 0, split(below[m], tmp, " "), below[m]
        printf "%s: ping-pong >= 64 KB geometric mean %.2fx over %d layouts, below 1: %d%s; all sizes %.2fx over %d\n", m,
            nq[m] ? exp(lq[m] / nq[m]) : 0, nq[m], split(ppbelow[m], tmp, " "), ppbelow[m], nqa[m] ? exp(lqa[m] / nqa[m]) : 0, nqa[m]
        if (has0[m]) {
            printf "%s: before pipelining (m+ddt0), ping-pong >= 64 KB geometric mean %.2fx over %d layouts, below 1: %d%s\n", m,
                n0[m] ? exp(l0[m] / n0[m]) : 0, n0[m], split(below0[m], tmp, " "), below0[m]
            printf "%s: pipelining (m+ddt0 / m+ddt): > 256 KiB (pipelined) %.2fx over %d layouts, below 1: %d%s; 64-256 KiB (not pipelined) %.2fx over %d\n", m,
                ngp[m] ? exp(lgp[m] / ngp[m]) : 0, ngp[m], split(gbelow[m], tmp, " "), gbelow[m], ngs[m] ? exp(lgs[m] / ngs[m]) : 0, ngs[m]
        }
    }
    for (b in bad) print "CHECK FAILED: " b ": " bad[b]
}
