package traced

import (
	"fmt"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// served issues rqs at time 0 on a device of depth with times, and
// returns each one's completion time, in issue order.
func served(t *testing.T, times *Times, depth int, rqs ...*blkq.Request) []time.Duration {
	t.Helper()
	loop := sim.NewLoop()
	d := New(loop, Params{Capacity: 1 << 20, Depth: depth, Times: times})
	done := map[*blkq.Request]time.Duration{}
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			t.Errorf("%v %d+%d: %v", rq.Op, rq.Sector, rq.Sectors, err)
		}
		done[rq] = time.Duration(loop.Now())
	})
	for _, rq := range rqs {
		d.Issue(rq)
	}
	loop.Run()
	out := make([]time.Duration, len(rqs))
	for i, rq := range rqs {
		out[i] = done[rq]
	}
	return out
}

func rq(op blkq.Op, sector uint64, sectors uint32) *blkq.Request {
	return &blkq.Request{Op: op, Sector: sector, Sectors: sectors}
}

// TestServedInTheRecordedTimes: a request takes the time the trace
// recorded for the same op, start and size, each recorded time once, in
// order; one the trace has no time left for takes the median of its op
// and size, else of its op, else of all.
func TestServedInTheRecordedTimes(t *testing.T) {
	times := NewTimes()
	times.Add(blkq.OpRead, 0, 8, 40*time.Microsecond)
	times.Add(blkq.OpRead, 0, 8, 90*time.Microsecond) // the same block again
	times.Add(blkq.OpRead, 8, 8, 10*time.Microsecond)
	times.Add(blkq.OpRead, 64, 256, 300*time.Microsecond)
	times.Add(blkq.OpWrite, 0, 8, 70*time.Microsecond)
	times.Add(blkq.OpFlush, 0, 0, 5*time.Microsecond)
	got := served(t, times, 128,
		rq(blkq.OpRead, 0, 8), rq(blkq.OpRead, 0, 8), // 40, then 90
		rq(blkq.OpRead, 0, 8),     // none left: the median of reads of 8 sectors (40, 90, 10 → 40)
		rq(blkq.OpRead, 500, 256), // the reads of 256 sectors: 300
		rq(blkq.OpRead, 500, 16),  // no read of 16: the median read (10 40 90 300 → 90)
		rq(blkq.OpDiscard, 0, 8),  // no discard: the median of all (…, 70, 90, … → 70)
		&blkq.Request{Op: blkq.OpFlush},
	)
	want := []time.Duration{40, 90, 40, 300, 90, 70, 5}
	for i := range want {
		want[i] *= time.Microsecond
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("completed at %v, want %v", got, want)
	}
}

// TestDepthLimitsService: beyond Depth requests in service, the next waits
// for a slot, in order.
func TestDepthLimitsService(t *testing.T) {
	times := NewTimes()
	for i := range 3 {
		times.Add(blkq.OpWrite, uint64(i)*8, 8, 100*time.Microsecond)
	}
	got := served(t, times, 2, rq(blkq.OpWrite, 0, 8), rq(blkq.OpWrite, 8, 8), rq(blkq.OpWrite, 16, 8))
	want := fmt.Sprint([]time.Duration{100 * time.Microsecond, 100 * time.Microsecond, 200 * time.Microsecond})
	if fmt.Sprint(got) != want {
		t.Fatalf("completed at %v, want %s", got, want)
	}
}

// TestNoTimesServesAtOnce: with no recorded time at all, a request takes
// none.
func TestNoTimesServesAtOnce(t *testing.T) {
	if got := served(t, nil, 0, rq(blkq.OpRead, 0, 8)); got[0] != 0 {
		t.Fatalf("completed at %v, want 0", got[0])
	}
}
