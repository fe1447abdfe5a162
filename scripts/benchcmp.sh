#!/bin/sh
# benchcmp.sh: the same benchmarks of two commits, side by side in one run.
#
#   scripts/benchcmp.sh OLD [NEW] [PKG] [BENCH] [ROUNDS]
#
# OLD and NEW are git revisions (NEW defaults to the working tree, "."); PKG
# is one package ("." by default); BENCH a -bench pattern ("." by default);
# ROUNDS how many times each side runs (5); BENCHTIME in the environment is
# passed to -benchtime (1s). The two test binaries are built
# once and run alternately (old, new, old, new, ...), so that a noisy,
# shared machine slows both alike; the table gives each benchmark's median
# ns/op and allocs/op for both and the ratio new/old.
set -eu
old=$1 new=${2:-.} pkg=${3:-.} bench=${4:-.} rounds=${5:-5}
. "$(dirname "$0")/benchbuild.sh"
i=0
while [ $i -lt "$rounds" ]; do
	for side in old new; do
		(cd "$dir" && "$work/$side.test" -test.run '^$' -test.bench "$bench" -test.benchmem -test.count 1 -test.benchtime "${BENCHTIME:-1s}") |
			awk -v side=$side '/^Benchmark/ { ns = ""; al = ""; for (f = 2; f <= NF; f++) { if ($f == "ns/op") ns = $(f-1); if ($f == "allocs/op") al = $(f-1) } print side, $1, ns, al }' >>"$work/results"
	done
	i=$((i + 1))
done
awk '
function median(s,   n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ sub(/-[0-9]+$/, "", $2); ns[$1, $2] = ns[$1, $2] " " $3; al[$1, $2] = al[$1, $2] " " $4; if (!seen[$2]++) order[++n] = $2 }
END {
	printf "%-60s %12s %12s %7s %9s %9s\n", "benchmark", "old ns/op", "new ns/op", "new/old", "old alloc", "new alloc"
	for (i = 1; i <= n; i++) {
		b = order[i]; o = median(ns["old", b]); w = median(ns["new", b])
		printf "%-60s %12.1f %12.1f %7.3f %9s %9s\n", b, o, w, (o > 0 ? w / o : 0), median(al["old", b]), median(al["new", b])
	}
}' "$work/results"
