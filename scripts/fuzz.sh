#!/usr/bin/env bash
# Runs every fuzz target of the repository for DURATION each, one after
# another, and reports each. DURATION is a Go duration (60s, 10m) or a
# count of executions (2000x; the default). test.sh runs the default; the
# long run the README asks for before a release is `scripts/fuzz.sh 10m`.
#
# CI counts executions rather than seconds: Go 1.26's fuzz coordinator can
# fail a target with a bare "context deadline exceeded" when a -fuzztime
# duration ends while a starved worker is mid-call (golang/go#75804, fixed
# in Go 1.27). A count has no deadline to race; on a loaded 2-core machine
# a 1s budget hit it. A long duration run can still show it: the line
# then carries no failing input, only that error.
#
# The targets are found with `go test -list`, so a new Fuzz function is
# run without editing this script. A failing input is kept by go test in
# the package's testdata/fuzz/FuzzX/ directory, where it becomes a
# regression case of `go test`; commit it with the fix.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
duration=${1:-2000x}
if ! [[ $duration =~ ^[0-9]+(s|m|h|x)$ ]]; then
	echo "usage: scripts/fuzz.sh [DURATION]   (per target: a time such as 60s or 10m, or a count of executions such as 2000x)" >&2
	exit 2
fi
# The packages that hold fuzz targets.
pkgs=$(grep -l --include='*_test.go' -r '^func Fuzz' . | xargs -n1 dirname | sort -u)
failed=()
ran=0
for pkg in $pkgs; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		ran=$((ran + 1))
		start=$(date +%s)
		if out=$(go test -run='^$' -fuzz="^${target}\$" -fuzztime="$duration" "$pkg" 2>&1); then
			execs=$(grep -o 'execs: [0-9]*' <<<"$out" | tail -1)
			printf 'ok    %-28s %-24s %4ss  %s\n' "$target" "$pkg" "$(($(date +%s) - start))" "${execs:-}"
		else
			printf 'FAIL  %-28s %s\n' "$target" "$pkg"
			echo "$out" | grep -v '^fuzz: elapsed' | tail -30
			failed+=("$pkg $target")
		fi
	done
done
if [ "$ran" = 0 ]; then
	echo "scripts/fuzz.sh: no fuzz targets found" >&2
	exit 1
fi
if [ ${#failed[@]} -gt 0 ]; then
	printf 'scripts/fuzz.sh: %d of %d targets failed: %s\n' "${#failed[@]}" "$ran" "${failed[*]}" >&2
	exit 1
fi
echo "scripts/fuzz.sh: $ran targets, $duration each: no failures"
