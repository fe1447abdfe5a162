package blkq_test

import (
	"sync"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/sim"
)

// readCountClock is a clock set by hand that counts its reads.
type readCountClock struct {
	mu    sync.Mutex
	t     blkq.Time
	reads int
}

func (c *readCountClock) Now() blkq.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.t
}

func (c *readCountClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

func (c *readCountClock) set(t blkq.Time) (reads int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
	return c.reads
}

// eventTimes records the time of each event by action.
type eventTimes struct {
	mu sync.Mutex
	at map[blkq.Action][]blkq.Time
}

func (e *eventTimes) Trace(ev *blkq.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.at[ev.Action] = append(e.at[ev.Action], ev.Time)
}

// TestBioStartIsTheSubmissionsTime: a bio's Start becomes the time of its
// submission's hold (its Q, G, I and D events and Bio.Queued) without a
// clock read; a Start earlier than a time the queue has used is not
// taken, so events never go back in time; Ended is the completion hold's
// time.
func TestBioStartIsTheSubmissionsTime(t *testing.T) {
	clk := &readCountClock{}
	q, err := blkq.New(device.NewNull(clk, 1<<20, 4), clk, blkq.Config{Scheduler: "mq-deadline"})
	if err != nil {
		t.Fatal(err)
	}
	ev := &eventTimes{at: map[blkq.Action][]blkq.Time{}}
	q.AddTracer(ev)
	task := blkq.NewTask(1, "t")
	done := make(chan blkq.Time, 1)
	bio := &blkq.Bio{Op: blkq.OpRead, Sector: 8, Sectors: 8, EndIO: func(b *blkq.Bio, err error) {
		if err != nil {
			t.Error(err)
		}
		done <- b.Ended
	}}

	// Start at 500 while the clock says 1000: the submission is at 500.
	before := clk.set(1000)
	bio.Start = 500
	q.Enqueue(task, bio)
	ended := <-done // (the null device completes on this goroutine, inline)
	if bio.Queued != 500 {
		t.Errorf("Queued %d, want the Start 500", bio.Queued)
	}
	for _, a := range []blkq.Action{'Q', 'G', 'I', 'D'} {
		if got := ev.at[a]; len(got) != 1 || got[0] != 500 {
			t.Errorf("%c at %v, want [500]", a, got)
		}
	}
	// The completion's hold reads the clock once: C and Ended at 1000.
	if reads := clk.set(2000) - before; reads != 1 {
		t.Errorf("%d clock reads for the I/O, want 1 (its completion's)", reads)
	}
	if got := ev.at['C']; len(got) != 1 || got[0] != 1000 || ended != 1000 {
		t.Errorf("C at %v, Ended %d: want 1000 for both", got, ended)
	}

	// A Start before 1000, which the queue has used, is not taken.
	bio.Start = 900
	q.Enqueue(task, bio)
	<-done
	if bio.Queued != 2000 {
		t.Errorf("Queued %d with a Start (900) before the queue's last time (1000): want the clock's 2000", bio.Queued)
	}
	// Start 0 is no Start.
	clk.set(3000)
	bio.Start = 0
	q.Enqueue(task, bio)
	<-done
	if bio.Queued != 3000 {
		t.Errorf("Queued %d without a Start: want the clock's 3000", bio.Queued)
	}
}

// TestBioEndedOnTheLoop: in simulation Ended is the loop's time of the
// completion, as the C event's; a bio refused at submission has its
// refusal's time.
func TestBioEndedOnTheLoop(t *testing.T) {
	loop := sim.NewLoop()
	q, err := blkq.New(device.NewNull(loop, 1<<20, 4), loop, blkq.Config{})
	if err != nil {
		t.Fatal(err)
	}
	q.AddTracer(&blkq.DiskStats{})
	task := blkq.NewTask(1, "t")
	var ended []blkq.Time
	end := func(b *blkq.Bio, err error) { ended = append(ended, b.Ended) }
	loop.AfterFunc(700, func() {
		q.Enqueue(task, &blkq.Bio{Op: blkq.OpRead, Sector: 0, Sectors: 8, EndIO: end})
		q.Enqueue(task, &blkq.Bio{Op: blkq.OpRead, Sector: 1 << 30, Sectors: 8, EndIO: end}) // beyond the end
	})
	loop.Run()
	if len(ended) != 2 || ended[0] != 700 || ended[1] != 700 {
		t.Fatalf("Ended %v, want [700 700] (the refusal, then the completion)", ended)
	}
}
