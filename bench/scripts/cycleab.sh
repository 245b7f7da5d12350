#!/bin/bash
# Usage: bench/scripts/cycleab.sh BEFORE.test AFTER.test [ROUNDS] [LAYOUT-REGEX]
# Interleaved A/B of BenchmarkCommitCycle (create+commit per iteration) between
# two test binaries of ./cmd/ddt/internal/bench (go test -c -o X.test
# ./cmd/ddt/internal/bench at each revision): ROUNDS rounds (default 10), each
# running before then after on the layouts matched (default the issue-24 set),
# 50000 cycles per layout and run. Prints per layout the median ns/cycle of
# each, after/before, and the allocations per cycle of each.
set -eu
before=$1 after=$2 rounds=${3:-10} re=${4:-'(L1S|L2S|L4cS|L4cM|L5aX|L7L)'}
out=$(mktemp)
for r in $(seq "$rounds"); do
  for side in before after; do
    bin=$before; [ $side = after ] && bin=$after
    "$bin" -test.run - -test.bench "CommitCycle\$/layout=$re\$" -test.benchtime 50000x -test.count 1 |
      awk -v s=$side '/^BenchmarkCommitCycle/ {sub(/^BenchmarkCommitCycle\/layout=/, "", $1); sub(/-[0-9]+$/, "", $1); print s, $1, $3, $7}' >> "$out"
  done
done
awk '
function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
  return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
{ k = $1 SUBSEP $2; n[k]++; v[k, n[k]] = $3; al[k] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++m] = $2 } }
END {
  printf "%-6s %12s %12s %8s %14s\n", "layout", "before ns", "after ns", "after/b", "allocs b->a"
  for (i = 1; i <= m; i++) { L = order[i]
    for (s = 0; s < 2; s++) { side = s ? "after" : "before"; k = side SUBSEP L; delete a; for (j = 1; j <= n[k]; j++) a[j] = v[k, j]; md[side] = med(a, n[k]) }
    printf "%-6s %12.0f %12.0f %8.2f %8d -> %d\n", L, md["before"], md["after"], md["after"] / md["before"], al["before" SUBSEP L], al["after" SUBSEP L] }
}' "$out"
rm -f "$out"
