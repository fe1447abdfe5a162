#!/usr/bin/env bash
# Full-size runs: every fio example job file in testdata/fio-3.33,
# unmodified and uncapped, on sim:hdd, with the wall time of each. A file
# whose engine blkq does not emulate fails with one line naming the option.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
go build -o /tmp/blkq-corpus ./cmd/blkq || exit 1
corpus=$(realpath "${1:-testdata/fio-3.33}")
# Some examples write fio logs (write_bw_log, ...) to the current
# directory, as fio does: run them in a temporary one.
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT && cd "$work" || exit 1
for f in "$corpus"/*.fio; do
  start=$(date +%s.%N)
  if /tmp/blkq-corpus run --output-format=json --output=/dev/null "$f" 2>/tmp/blkq-corpus.err; then
    status=ok
  else
    status="exit $? : $(tail -1 /tmp/blkq-corpus.err)"
  fi
  end=$(date +%s.%N)
  printf '%-32s %6.1fs  %s\n' "$(basename "$f")" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$status"
done
