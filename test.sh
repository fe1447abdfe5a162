#!/usr/bin/env bash
# The test command of the README: installs the outside tools the tests use
# (Debian's blktrace, whose blkparse and btt check the traces blkq writes)
# and runs every test, with the race detector on the packages that run
# goroutines.
set -euo pipefail
cd "$(dirname "$0")"
export PATH=$PATH:/usr/local/go/bin
# blkparse and btt: installed once, quietly, when running as root. A failed
# install is reported; the tests that need the tools then fail under CI=true
# (and skip elsewhere).
if ! command -v blkparse >/dev/null || ! command -v btt >/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq blktrace; } >/dev/null 2>&1 ||
			echo "test.sh: could not install blktrace (blkparse, btt)" >&2
	else
		echo "test.sh: blkparse/btt missing and not root: apt-get install blktrace" >&2
	fi
fi
# fio 3.33 (the oracle of the fio-compatibility tests) and python3-six
# (fio's tools/fio_jsonplus_clat2csv imports it): the same, once.
if ! command -v fio >/dev/null || ! python3 -c 'import six' 2>/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio python3-six; } >/dev/null 2>&1 ||
			echo "test.sh: could not install fio, python3-six" >&2
	else
		echo "test.sh: fio or python3-six missing and not root: apt-get install fio python3-six" >&2
	fi
fi
go vet ./...
go test -count=1 ./...
go test -count=1 -race . ./device/... ./sim/... ./engine/... ./trace/... ./bcache/... ./lockstat/... ./cmd/...
scripts/fuzz.sh 2000x # every fuzz target briefly, 2000 executions each (the long run: scripts/fuzz.sh 10m)
