package blkq_test

import (
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/sim"
)

// TestSleepsAllocateNothing: 64 tasks each keep one 4 KiB read in
// flight on a null device in virtual time, past nr_requests (4), so that
// most submissions sleep for a request and are woken: once the queue's
// structures have grown (a first round), sleeps, wake-ups and I/Os
// allocate nothing (a waiter and its resume are its task's, reused).
func TestSleepsAllocateNothing(t *testing.T) {
	loop := sim.NewLoop()
	q, err := blkq.New(device.NewNull(loop, 1<<20, 1), loop, blkq.Config{Scheduler: "mq-deadline", NrRequests: 4})
	if err != nil {
		t.Fatal(err)
	}
	st := &blkq.DiskStats{}
	q.AddTracer(st)
	left := 0
	tasks := make([]*blkq.Task, 64)
	bios := make([]*blkq.Bio, 64)
	for i := range tasks {
		task := blkq.NewTask(i+1, "t")
		tasks[i] = task
		bios[i] = &blkq.Bio{Op: blkq.OpRead, Sector: uint64(i) * 64, Sectors: 8, EndIO: func(b *blkq.Bio, err error) {
			if err != nil {
				t.Error(err)
			}
			if left > 0 {
				left--
				q.Enqueue(task, b)
			}
		}}
	}
	round := func(ios int) {
		left = ios
		for i := range tasks {
			q.Enqueue(tasks[i], bios[i])
		}
		loop.Run()
	}
	round(1000)
	const ios = 10000
	sleeps := st.Sleeps
	if a := testing.AllocsPerRun(1, func() { round(ios) }); a > 0 {
		t.Errorf("%.0f allocations for %d I/Os and %d sleeps", a, ios+len(tasks), st.Sleeps-sleeps)
	}
	if n := st.Sleeps - sleeps; n < ios/2 {
		t.Errorf("%d sleeps in %d I/Os: the test wants most submissions to sleep", n, ios)
	}
	if err := q.Check(true); err != nil {
		t.Error(err)
	}
}
