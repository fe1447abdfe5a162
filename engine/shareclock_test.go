package engine

import (
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// TestNullSyncLatIsClat: a null-engine job at iodepth=1 on the null
// device is a sync engine, whose lat is its clat I/O for I/O; the job
// records one histogram for both (jobStats.record's twinning), so the
// two agree in every figure, and lat is there at all.
func TestNullSyncLatIsClat(t *testing.T) {
	res := runJobs(t, "[n]\nioengine=null\nrw=randread\nbs=4k\nsize=16m\nnumber_ios=2000\n", Options{Device: "null"})
	r := res.Run.Jobs[0].Read
	if r.IOs != 2000 || r.Lat.Count() != 2000 || r.Clat.Count() != 2000 || r.Slat.Count() != 0 {
		t.Fatalf("%d I/Os: lat %d, clat %d, slat %d; want 2000, 2000, 2000, 0", r.IOs, r.Lat.Count(), r.Clat.Count(), r.Slat.Count())
	}
	same := func(a, b *report.Latency) bool {
		return a.Min() == b.Min() && a.Max() == b.Max() && a.Total() == b.Total() && a.Mean() == b.Mean() &&
			a.Stddev() == b.Stddev() && a.Percentile(50) == b.Percentile(50) && a.Percentile(99.9) == b.Percentile(99.9)
	}
	if !same(r.Lat, r.Clat) {
		t.Errorf("lat min %d max %d mean %.1f, clat min %d max %d mean %.1f: want the same", r.Lat.Min(), r.Lat.Max(), r.Lat.Mean(), r.Clat.Min(), r.Clat.Max(), r.Clat.Mean())
	}
	if r.Clat.Min() < 0 || r.Clat.Max() <= 0 {
		t.Errorf("clat min %d max %d: want times that moved", r.Clat.Min(), r.Clat.Max())
	}
}

// TestNullSyncShareClockAgreesWithQueue: on the null device on the real
// clock the job's reaps take the queue's completion times (shareClock):
// every I/O's clat still spans its own submission and completion, so the
// sum of the clats is at most the job's runtime (the I/Os are done one
// after another, at iodepth=1) and every clat is positive or zero.
func TestNullSyncShareClockAgreesWithQueue(t *testing.T) {
	res := runJobs(t, "[n]\nioengine=null\nrw=randread\nbs=4k\nsize=64m\nnumber_ios=5000\n", Options{Device: "null"})
	js := res.Run.Jobs[0]
	r := js.Read
	if r.IOs != 5000 {
		t.Fatalf("%d I/Os, want 5000", r.IOs)
	}
	if r.Clat.Min() < 0 || r.Clat.Total() > js.Runtime {
		t.Errorf("clat min %d, total %d ns over a runtime of %d ns: want 0 <= min and total <= runtime", r.Clat.Min(), r.Clat.Total(), js.Runtime)
	}
	if res.Disk.IOs[blkq.OpRead] != 5000 {
		t.Errorf("disk stats %+v: want the 5000 reads counted", res.Disk.IOs)
	}
}
