package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv names the file a CPU profile of the whole process goes to
// (BLKQ_CPUPROFILE=/tmp/run.prof blkq run job.fio): what `go test
// -cpuprofile` gives a benchmark, for a command as a user runs it, the
// runtime and every goroutine of the run included (docs/performance.md).
// A variable, not a flag, so that every command takes it and blkq bench's
// own child runs can be profiled.
const profileEnv = "BLKQ_CPUPROFILE"

// startProfile starts the CPU profile profileEnv asks for, if any, and
// returns the function that ends it. A file that cannot be made is
// reported on stderr and the command runs unprofiled.
func startProfile() (stop func()) {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "blkq: %s=%s: %v\n", profileEnv, path, err)
		if f != nil {
			f.Close()
		}
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
