package engine

import (
	"strings"
	"testing"
)

// TestRateIOPSMinAndRateCycle: a job that cannot reach rate_iops_min
// fails as fio fails it (check_min_rate, EIO, "rate_iops_min=N not met")
// one rate_cycle after fio's 2 s of settling; a longer rate_cycle fails
// it later; a job that reaches it runs on.
func TestRateIOPSMinAndRateCycle(t *testing.T) {
	const job = "[j]\nrw=randread\nbs=4k\ndirect=1\nfilename=/dev/sdb\nruntime=20\ntime_based\nrate_iops_min=1000\n"
	for _, c := range []struct {
		cycle  string
		lo, hi int64 // ns
	}{{"", 3e9, 3.1e9}, {"rate_cycle=5000\n", 7e9, 7.1e9}, {"ratecycle=100\n", 2.1e9, 2.2e9}} {
		res, err := Run(parse(t, job+c.cycle), Options{})
		if err != nil {
			t.Fatal(err)
		}
		js := res.Run.Jobs[0]
		if js.Error != 5 || !strings.Contains(js.ErrorText, "check_min_rate") || js.Runtime < c.lo || js.Runtime > c.hi {
			t.Errorf("%q: error %d %q after %d ns, want EIO from check_min_rate after %d-%d ns", c.cycle, js.Error, js.ErrorText, js.Runtime, c.lo, c.hi)
		}
	}
	ok := run(t, "[j]\nrw=read\nbs=4k\ndirect=1\nioengine=libaio\niodepth=8\nsize=256m\nrate_iops_min=1000\n", Options{})
	if ok.Run.Jobs[0].Read.IOs != 65536 {
		t.Errorf("sequential reads with rate_iops_min=1000: %d I/Os", ok.Run.Jobs[0].Read.IOs)
	}
}

// TestRateIgnoreThinktime: a rate_iops=100 job that stalls 50 ms after
// every 10 I/Os catches up after each stall and keeps its 100 IOPS on
// average; with rate_ignore_thinktime it is credited for the stall and
// goes on at its pace, the first I/O after each stall at once (fio
// credits one block less): 10 I/Os per 140 ms.
func TestRateIgnoreThinktime(t *testing.T) {
	const job = "[j]\nrw=randread\nbs=4k\ndirect=1\nfilename=/dev/sdb\nruntime=6\ntime_based\nrate_iops=100\nthinktime=50ms\nthinktime_blocks=10\n"
	for _, c := range []struct {
		extra  string
		lo, hi uint64
	}{{"", 590, 610}, {"rate_ignore_thinktime=1\n", 420, 440}} {
		res := run(t, job+c.extra, Options{Device: "sim:ssd"})
		if n := res.Run.Jobs[0].Read.IOs; n < c.lo || n > c.hi {
			t.Errorf("%q: %d I/Os in 6 s, want %d-%d", c.extra, n, c.lo, c.hi)
		}
	}
}
