package blkq_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/hdd"
)

// queuedRequestBytes returns the heap bytes a queue holds per request
// queued: a queue on the simulated disk with nr_requests at its maximum
// (2048 per direction), n random reads and writes that cannot merge
// queued from their own tasks and the loop never run, so that one is in
// service and the rest wait in the elevator. The figure is the heap
// growth from before the queue was made to after the bios were queued,
// over n: the request, its place in the elevator's lists, the merge hash
// and the queue's fixed part spread over n. The bios themselves (the
// submitter's) were allocated before and are not counted.
func queuedRequestBytes(t testing.TB, sched string, n int) float64 {
	loop := sim.NewLoop()
	dev := hdd.New(loop, hdd.Params{})
	rng := rand.New(rand.NewPCG(7, 7))
	bios := make([]blkq.Bio, n)
	tasks := make([]*blkq.Task, n)
	for i := range bios {
		op := blkq.OpRead
		if i%2 == 1 {
			op = blkq.OpWrite
		}
		bios[i] = blkq.Bio{Op: op, Sector: rng.Uint64N(1<<25) << 4, Sectors: 8}
		bios[i].EndIO = func(b *blkq.Bio, err error) { t.Errorf("bio at %d ended: %v", b.Sector, err) }
		tasks[i] = blkq.NewTask(i+1, "rq")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	q, err := blkq.New(dev, loop, blkq.Config{Scheduler: sched, NrRequests: 2048})
	if err != nil {
		t.Fatal(err)
	}
	for i := range bios {
		if !q.Enqueue(tasks[i], &bios[i]) {
			t.Fatalf("bio %d slept for a request", i)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if p := q.Pool(); p.Queued+p.InFlight != n {
		t.Fatalf("%s: %d requests queued and %d in flight, want %d in all (some bios merged): %+v", sched, p.Queued, p.InFlight, n, p)
	}
	runtime.KeepAlive(q)
	runtime.KeepAlive(bios)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// TestQueuedRequestMemory checks issue 13's budget: a queued request costs
// at most 256 bytes of memory, with each scheduler.
func TestQueuedRequestMemory(t *testing.T) {
	for _, sched := range benchSchedulers {
		per := queuedRequestBytes(t, sched, 4000)
		t.Logf("%s: %.0f bytes per queued request", sched, per)
		if per > 256 {
			t.Errorf("%s: %.0f bytes per queued request, budget 256", sched, per)
		}
	}
}

// BenchmarkQueuedRequestMemory reports the same figure as B/queued-rq.
func BenchmarkQueuedRequestMemory(b *testing.B) {
	for _, sched := range benchSchedulers {
		b.Run(sched, func(b *testing.B) {
			var per float64
			for range b.N {
				per = queuedRequestBytes(b, sched, 4000)
			}
			b.ReportMetric(per, "B/queued-rq")
		})
	}
}
