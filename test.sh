#!/usr/bin/env bash
# The test command of the README: installs the outside tools the tests use
# (none yet beyond Go) and runs every test, with the race detector on the
# packages that run goroutines.
set -euo pipefail
cd "$(dirname "$0")"
export PATH=$PATH:/usr/local/go/bin
go vet ./...
go test -count=1 ./...
go test -count=1 -race . ./device/... ./sim/... ./engine/...
