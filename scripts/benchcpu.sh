#!/bin/sh
# benchcpu.sh: CPU time per op of two commits' benchmarks, side by side.
#
#   scripts/benchcpu.sh OLD [NEW] [PKG] [BENCH] [ROUNDS] [ITER]
#
# As benchcmp.sh, but for a loaded, shared machine: wall-clock ns/op moves
# with every other process, CPU time much less. Each benchmark (each
# sub-benchmark on its own) runs as its own process, old and new
# alternately, ROUNDS times (5), once for 1 op and once for ITER ops
# (200000); the CPU time (user + sys, /usr/bin/time) of the difference,
# divided by ITER-1, is its CPU ns/op, free of start-up and set-up. The
# table gives the medians and the ratio new/old.
set -eu
old=$1 new=${2:-.} pkg=${3:-.} bench=${4:-.} rounds=${5:-5} iter=${6:-200000}
. "$(dirname "$0")/benchbuild.sh"
# The benchmarks' full names, from one quick pass of the new binary.
names=$(cd "$dir" && "$work/new.test" -test.run '^$' -test.bench "$bench" -test.benchtime 1x | awk '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print $1 }')
cpu() { # side name n: CPU seconds of one process
	pat=$(echo "$2" | sed 's/^Benchmark//; s/[][().*+?^$|]/\\&/g' | awk -F/ '{ s = "^Benchmark" $1 "$"; for (i = 2; i <= NF; i++) s = s "/^" $i "$"; print s }')
	(cd "$dir" && /usr/bin/time -f '%U %S' "$work/$1.test" -test.run '^$' -test.bench "$pat" -test.benchtime "${3}x" 2>&1 >/dev/null) | tail -1 | awk '{ print $1 + $2 }'
}
for name in $names; do
	i=0
	while [ $i -lt "$rounds" ]; do
		for side in old new; do
			one=$(cpu $side "$name" 1)
			many=$(cpu $side "$name" "$iter")
			echo "$side $name $one $many" >>"$work/results"
		done
		i=$((i + 1))
	done
done
awk -v iter="$iter" '
function median(s,   n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1, $2] = v[$1, $2] " " ($4 - $3) * 1e9 / (iter - 1); if (!seen[$2]++) order[++n] = $2 }
END {
	printf "%-60s %14s %14s %7s\n", "benchmark", "old cpu ns/op", "new cpu ns/op", "new/old"
	for (i = 1; i <= n; i++) {
		b = order[i]; o = median(v["old", b]); w = median(v["new", b])
		printf "%-60s %14.1f %14.1f %7.3f\n", b, o, w, (o > 0 ? w / o : 0)
	}
}' "$work/results"
