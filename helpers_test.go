package blkq

import (
	"container/heap"
	"errors"
	"fmt"
	"testing"
	"time"
)

// testClock is a minimal virtual clock for the core's own tests (package
// sim imports blkq, so it cannot be used here).
type testClock struct {
	now Time
	seq int
	h   timerHeap
}

type timer struct {
	at   Time
	seq  int
	f    func()
	dead bool
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

func (c *testClock) Now() Time { return c.now }
func (c *testClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.seq++
	t := &timer{at: c.now + Time(max(d, 0)), seq: c.seq, f: f}
	heap.Push(&c.h, t)
	return func() bool { was := !t.dead; t.dead = true; return was }
}

// run runs timers until none are left.
func (c *testClock) run() {
	for c.h.Len() > 0 {
		t := heap.Pop(&c.h).(*timer)
		if t.dead {
			continue
		}
		t.dead = true
		c.now = t.at
		t.f()
	}
}

// testDevice serves requests one after another (or depth at once), each
// taking a fixed service time, and records the order it saw them in.
type testDevice struct {
	clk      *testClock
	depth    int
	service  time.Duration
	capacity uint64
	complete func(*Request, error)
	issued   []string // "R 0+8" per issued request
	busy     int
	manual   bool       // hold requests until completeOne
	held     []*Request // in issue order, when manual
}

// completeOne completes the oldest held request (manual mode).
func (d *testDevice) completeOne() {
	rq := d.held[0]
	d.held = d.held[1:]
	d.complete(rq, nil)
}

func newTestDevice(clk *testClock, depth int, service time.Duration) *testDevice {
	return &testDevice{clk: clk, depth: depth, service: service, capacity: 1 << 30}
}

func (d *testDevice) Name() string                   { return "test" }
func (d *testDevice) Capacity() uint64               { return d.capacity }
func (d *testDevice) Depth() int                     { return d.depth }
func (d *testDevice) Attach(c func(*Request, error)) { d.complete = c }
func (d *testDevice) Close() error                   { return nil }
func (d *testDevice) Issue(rq *Request) {
	d.issued = append(d.issued, fmt.Sprintf("%s %d+%d", opLetter(rq.Op), rq.Sector, rq.Sectors))
	if d.manual {
		d.held = append(d.held, rq)
		return
	}
	d.busy++
	// Serve one at a time: completion after the ones ahead of it.
	d.clk.AfterFunc(time.Duration(d.busy)*d.service, func() {
		d.busy--
		d.complete(rq, nil)
	})
}

func opLetter(o Op) string {
	return map[Op]string{OpRead: "R", OpWrite: "W", OpFlush: "F", OpDiscard: "D"}[o]
}

// recorder is a Tracer that keeps the action letters and counts.
type recorder struct {
	events []Event
	count  map[Action]int
}

func (r *recorder) Trace(e *Event) {
	if r.count == nil {
		r.count = map[Action]int{}
	}
	r.count[e.Action]++
	c := *e
	c.Bio, c.Rq = nil, nil
	r.events = append(r.events, c)
}

// letters returns the action letters in order, e.g. "QGIDC".
func (r *recorder) letters() string {
	s := ""
	for _, e := range r.events {
		s += string(rune(e.Action))
	}
	return s
}

// harness is a queue on a test device with a recorder and end_io
// bookkeeping for the exactly-once invariant.
type harness struct {
	t     *testing.T
	clk   *testClock
	dev   *testDevice
	q     *Queue
	rec   *recorder
	ended map[*Bio]int
	errs  map[*Bio]error
	subs  int
}

func newHarness(t *testing.T, depth int, cfg Config) *harness {
	t.Helper()
	clk := &testClock{}
	dev := newTestDevice(clk, depth, time.Millisecond)
	q, err := New(dev, clk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clk: clk, dev: dev, q: q, rec: &recorder{}, ended: map[*Bio]int{}, errs: map[*Bio]error{}}
	q.AddTracer(h.rec)
	return h
}

func (h *harness) bio(op Op, sector uint64, sectors uint32) *Bio {
	h.subs++
	return &Bio{Op: op, Sector: sector, Sectors: sectors, EndIO: func(b *Bio, err error) {
		h.ended[b]++
		h.errs[b] = err
	}}
}

// submit submits a bio and reports whether the task stayed awake.
func (h *harness) submit(t *Task, op Op, sector uint64, sectors uint32) (*Bio, bool) {
	b := h.bio(op, sector, sectors)
	return b, h.q.Enqueue(t, b)
}

// finish runs the clock dry and checks the invariants: every bio ended
// exactly once, requests conserved, nothing left in use.
func (h *harness) finish() {
	h.t.Helper()
	h.clk.run()
	if len(h.ended) != h.subs {
		h.t.Errorf("%d bios submitted, %d ended", h.subs, len(h.ended))
	}
	for b, n := range h.ended {
		if n != 1 {
			h.t.Errorf("bio %v %d+%d ended %d times", b.Op, b.Sector, b.Sectors, n)
		}
	}
	if err := h.q.CheckInvariants(); err != nil {
		h.t.Error(err)
	}
	if !h.q.Idle() {
		h.t.Errorf("queue not idle at the end: %+v", h.q.Pool())
	}
}

// taskCounts are a task's allocation figures, derived from the events as
// every consumer of the stream derives them.
type taskCounts struct {
	sleeps, wakeups, waits, dropped int
	waitMax                         Time
}

// counts derives pid's figures from the recorded events: S, W, G after a
// sleep (a wait, with its S2G time), and C without a request (a dropped
// read-ahead).
func (r *recorder) counts(pid int) taskCounts {
	var c taskCounts
	asleep := false
	for _, e := range r.events {
		if e.PID != pid {
			continue
		}
		switch e.Action {
		case actSleepRq:
			c.sleeps++
			asleep = true
		case actWake:
			c.wakeups++
		case actGetRq:
			if asleep {
				c.waits++
				c.waitMax = max(c.waitMax, e.Wait)
				asleep = false
			}
		case actComplete:
			if errors.Is(e.Err, ErrReadAheadDropped) {
				c.dropped++
			}
		}
	}
	return c
}
