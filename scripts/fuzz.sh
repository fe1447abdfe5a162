#!/usr/bin/env bash
# Runs every fuzz target of the repository for DURATION each (a Go
# duration: 1s, 60s, 10m; default 1s, about ten seconds in all), one
# after another, and reports each. test.sh runs it with the default; the
# long run the README asks for before a release is `scripts/fuzz.sh 10m`.
#
# The targets are found with `go test -list`, so a new Fuzz function is
# run without editing this script. A failing input is kept by go test in
# the package's testdata/fuzz/FuzzX/ directory, where it becomes a
# regression case of `go test`; commit it with the fix.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
duration=${1:-1s}
if ! [[ $duration =~ ^[0-9]+(s|m|h)$ ]]; then
	echo "usage: scripts/fuzz.sh [DURATION]   (DURATION per target, such as 1s, 60s, 10m)" >&2
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
