#!/bin/bash
# jitab.sh TYPEFILE SPAN PACKED UNITS ROUNDS "ENV_A" "ENV_B" [face|vec1]
# (bench/RESULTS.md §23) Times the generated code of TYPEFILE under two
# environments of the generator (e.g. "DDT_JIT_BLEND=0" and "") in one C
# process, interleaved, and beside gcc's loop of an anchor layout (face:
# L3 S, vec1: L1 S/L2 S). Run it from the repository, through measure.sh:
#   bench/scripts/measure.sh bench/scripts/jitab.sh /tmp/l2.ddt 49152 2048 256 301 DDT_JIT_BLEND=0 "" vec1
# The type's lower bound must be 0 and its first pack and unpack entries
# the ones to time (a single-node program: `ddt dame --asm` shows them).
set -euo pipefail
ty=$1 span=$2 packed=$3 units=$4 rounds=$5 ea=$6 eb=$7 gcc=${8:-}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
go build -o "$d/ddt" ./cmd/ddt
tos() { # listing -> .S with the first pack and unpack entries as $2_pack, $2_unpack
	awk -v n="$2" 'BEGIN { print ".text" }
		/^pack / && !p { p = 1; s = 1; printf ".globl %s_pack\n.p2align 6\n%s_pack:\n", n, n; next }
		/^unpack / && !u { u = 1; s = 1; printf ".globl %s_unpack\n.p2align 6\n%s_unpack:\n", n, n; next }
		/^[a-z]/ { s = 0; next }
		s && $1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9a-f]+$/ {
			h = $2; b = ".byte "
			for (i = 1; i < length(h); i += 2) b = b (i > 1 ? "," : "") "0x" substr(h, i, 2)
			print b }' "$1"
}
env $ea "$d/ddt" dame --asm "$ty" > "$d/a.lst"
env $eb "$d/ddt" dame --asm "$ty" > "$d/b.lst"
tos "$d/a.lst" a > "$d/a.S"
tos "$d/b.lst" b > "$d/b.S"
gcc -O2 -march=native -o "$d/jitab" bench/scripts/jitab.c "$d/a.S" "$d/b.S" -Wl,-z,noexecstack
echo "a: ${ea:-(default)}  b: ${eb:-(default)}  $(head -1 "$d/b.lst")"
"$d/jitab" "$span" "$packed" "$units" "$rounds" $gcc
