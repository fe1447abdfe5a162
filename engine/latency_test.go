package engine

import (
	"path/filepath"
	"testing"
)

// checkSyncLatency asserts fio's figures for a sync engine: no slat, and a
// clat that spans the whole call, so that it agrees with lat.
func checkSyncLatency(t *testing.T, name string, res *Result) {
	t.Helper()
	for _, js := range res.Run.Jobs {
		d := &js.Read
		if js.Write.IOs > 0 {
			d = &js.Write
		}
		if d.IOs == 0 {
			t.Fatalf("%s: job %s did no I/O", name, js.Name)
		}
		if n := d.Slat.Count(); n != 0 {
			t.Errorf("%s: job %s: %d slat samples for a sync engine, want none", name, js.Name, n)
		}
		if d.Clat.Count() != int64(d.IOs) {
			t.Errorf("%s: job %s: %d clat samples for %d I/Os", name, js.Name, d.Clat.Count(), d.IOs)
		}
		if d.Clat.Min() != d.Lat.Min() || d.Clat.Max() != d.Lat.Max() || d.Clat.Total() != d.Lat.Total() {
			t.Errorf("%s: job %s: clat min/max/total %d/%d/%d, lat %d/%d/%d: a sync engine's clat spans the call, as lat does",
				name, js.Name, d.Clat.Min(), d.Clat.Max(), d.Clat.Total(), d.Lat.Min(), d.Lat.Max(), d.Lat.Total())
		}
	}
}

// TestPsyncClatSpansTheRead: an O_DIRECT psync read on a file is timed from
// before the queue takes it to its completion, as fio times the pread; it
// has no submission latency (today clat started after the submission had
// returned, which on a real file can be after the device finished: clat
// min=151 ns).
func TestPsyncClatSpansTheRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	res := run(t, `[rd]
ioengine=psync
rw=randread
direct=1
bs=4k
size=1m
`, Options{Device: "file:" + path})
	checkSyncLatency(t, "file", res)
}

// TestPsyncClatIncludesAllocationSleep: on the simulated disk, sync writers
// that sleep for a request have that sleep in clat (it is inside their
// pwrite), not in a slat that fio would not print.
func TestPsyncClatIncludesAllocationSleep(t *testing.T) {
	res := run(t, `[w]
ioengine=psync
rw=randwrite
direct=1
bs=4k
size=64m
runtime=1
time_based
numjobs=8
`, Options{NrRequests: 4})
	checkSyncLatency(t, "sim", res)
	var sleeps uint64
	for _, js := range res.Run.Jobs {
		sleeps += js.Blkq.Sleeps
	}
	if sleeps == 0 {
		t.Fatal("no writer slept: the test shows nothing")
	}
}
