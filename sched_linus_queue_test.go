package blkq

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// probe wraps the elevator and checks, independently of its budget
// arithmetic, that no request ever has newer I/O put ahead of it once its
// budget is exhausted, and that no request is passed more often than its
// budget allows. A pass is counted from the list itself: a new request
// passes every request behind the place it lands; a bio merged into rq
// passes every request behind rq, and rq itself for a front merge.
type probe struct {
	*linus
	st map[*Request]*rqStat

	violations []string
	passes     int // passes of any kind
	seekyMax   [2]int
	passMax    [2]int
	exhausted  int // requests dispatched with an exhausted budget
	merges     int
	refused    int
	dispatched int
}

type rqStat struct {
	budget int // at insert
	passes int // all passes
	seeky  int // passes by a seeky insert
}

func newProbe(p linusParams) *probe {
	return &probe{linus: newLinus(p), st: map[*Request]*rqStat{}}
}

func (p *probe) violate(format string, args ...any) {
	if len(p.violations) < 10 {
		p.violations = append(p.violations, fmt.Sprintf(format, args...))
	}
}

func (p *probe) pass(r *Request, seeky bool, why string) {
	if r.elvSeq <= 0 {
		p.violate("%s passed %s with budget %d", why, linusRqName(r), r.elvSeq)
	}
	s := p.st[r]
	s.passes++
	if seeky {
		s.seeky++
	}
	p.passes++
}

func (p *probe) Insert(rq *Request, atHead bool, now Time) {
	if atHead {
		p.linus.Insert(rq, atHead, now)
		return
	}
	// Budgets before the insert: the insert may only pass positive ones.
	before := map[*Request]int{}
	for r := p.sorted.Front(); r != nil; r = r.elv.next {
		before[r] = r.elvSeq
	}
	p.linus.Insert(rq, atHead, now)
	p.st[rq] = &rqStat{budget: rq.elvSeq}
	prev, next := rq.elv.prev, rq.elv.next
	seeky := !(prev != nil && prev.end() == rq.Sector || next != nil && rq.end() == next.Sector)
	for r := next; r != nil; r = r.elv.next {
		if before[r] <= 0 {
			p.violate("insert of %s passed %s with budget %d", linusRqName(rq), linusRqName(r), before[r])
		}
		s := p.st[r]
		s.passes++
		if seeky {
			s.seeky++
		}
		p.passes++
	}
}

func (p *probe) AllowMerge(rq *Request, b *Bio) bool {
	ok := p.linus.AllowMerge(rq, b)
	if !ok {
		p.refused++
	}
	return ok
}

func (p *probe) Merged(rq *Request, front bool) {
	p.merges++
	if front {
		p.pass(rq, false, "front merge")
	}
	for r := rq.elv.next; r != nil; r = r.elv.next {
		p.pass(r, false, "merge into "+linusRqName(rq))
	}
	p.linus.Merged(rq, front)
}

func (p *probe) MergedRequests(rq, next *Request) {
	p.linus.MergedRequests(rq, next)
	delete(p.st, next)
}

func (p *probe) Dispatch(now Time) *Request {
	rq := p.linus.Dispatch(now)
	if rq == nil {
		return nil
	}
	p.dispatched++
	s, ok := p.st[rq]
	if !ok {
		return rq // a head insert
	}
	delete(p.st, rq)
	d := rq.Op.dir()
	// Each pass costs at least 1 and needs a positive budget, so at most
	// budget passes, and at most (budget-1)/seek_cost + 1 seeky ones.
	maxSeeky := 0
	if s.budget > 0 {
		maxSeeky = (s.budget-1)/p.p.SeekCost + 1
	}
	if s.passes > s.budget || s.seeky > maxSeeky {
		p.violate("%s passed %d times (%d seeky) on a budget of %d (seek cost %d)", linusRqName(rq), s.passes, s.seeky, s.budget, p.p.SeekCost)
	}
	p.passMax[d] = max(p.passMax[d], s.passes)
	p.seekyMax[d] = max(p.seekyMax[d], s.seeky)
	if rq.elvSeq <= 0 {
		p.exhausted++
	}
	return rq
}

// seekDevice serves one request at a time; the service time grows with
// the distance from the previous request, so a queue builds up behind it.
type seekDevice struct {
	loop     *simLoop
	capacity uint64
	head     uint64
	complete func(*Request, error)
}

func (d *seekDevice) Name() string                   { return "seek" }
func (d *seekDevice) Capacity() uint64               { return d.capacity }
func (d *seekDevice) Depth() int                     { return 1 }
func (d *seekDevice) Attach(c func(*Request, error)) { d.complete = c }
func (d *seekDevice) Close() error                   { return nil }
func (d *seekDevice) Issue(rq *Request) {
	dist := max(rq.Sector, d.head) - min(rq.Sector, d.head)
	service := 100*time.Microsecond + time.Duration(dist*uint64(8*time.Millisecond)/d.capacity) +
		time.Duration(rq.Sectors)*time.Microsecond
	d.head = rq.end()
	d.loop.Schedule(service, func() { d.complete(rq, nil) })
}

// run drives a queue with nTasks tasks submitting total bios between them:
// reads and writes, half of them continuing the task's previous bio (so
// they merge), the rest at random; a few flushes. Each task thinks for a
// random time between bios and sleeps when no request is free.
type run struct {
	t     *testing.T
	loop  *simLoop
	q     *Queue
	rng   *rand.Rand
	left  int
	subs  int
	ended map[*Bio]int
	errs  int
	// hook, if set, runs once after half the bios were submitted.
	hook func()
}

type worker struct {
	r    *run
	task *Task
	op   Op
	next uint64 // sector after the task's last bio
	hot  uint64 // a region the task keeps returning to
}

func (w *worker) bio() *Bio {
	r := w.r
	cap := r.q.Device().Capacity()
	b := &Bio{Op: w.op, EndIO: func(b *Bio, err error) {
		r.ended[b]++
		if err != nil {
			r.errs++
		}
	}}
	switch x := r.rng.IntN(100); {
	case x < 1:
		b.Op = OpFlush
		return b
	case x < 50 && w.next+64 <= cap:
		b.Sector = w.next // sequential: merges
	case x < 75:
		b.Sector = w.hot + r.rng.Uint64N(4096)&^7
		if r.rng.IntN(2) == 0 {
			b.Op = OpRead
		} else {
			b.Op = OpWrite
		}
	default:
		b.Sector = r.rng.Uint64N(cap-64) &^ 7
	}
	b.Sectors = 8 * uint32(1+r.rng.IntN(8))
	if b.end() > cap {
		b.Sector = cap - uint64(b.Sectors)
	}
	w.next = b.end()
	return b
}

// step submits bios until the task sleeps or decides to think.
func (w *worker) step() {
	r := w.r
	for r.left > 0 {
		b := w.bio()
		r.left--
		r.subs++
		if r.hook != nil && r.left == r.subs {
			r.hook()
			r.hook = nil
		}
		if !r.q.Enqueue(w.task, b) {
			return // asleep: Wake resumes it
		}
		if r.rng.IntN(4) != 0 {
			r.loop.Schedule(time.Duration(r.rng.Int64N(int64(3*time.Millisecond))), w.step)
			return
		}
	}
}

func newRun(t *testing.T, dev Device, loop *simLoop, sched string, nTasks, total int, seed uint64) *run {
	q, err := New(dev, loop, Config{Scheduler: sched})
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, loop: loop, q: q, rng: newTestRNG(seed), left: total, ended: map[*Bio]int{}}
	cap := dev.Capacity()
	for i := range nTasks {
		w := &worker{r: r, task: NewTask(100+i, fmt.Sprintf("t%d", i)), op: OpRead}
		if i%2 == 1 {
			w.op = OpWrite
		}
		w.next = r.rng.Uint64N(cap-1<<16) &^ 7
		w.hot = r.rng.Uint64N(cap-1<<16) &^ 7
		w.task.Wake = func(resume func() bool) {
			loop.Post(func() {
				if resume() {
					w.step()
				}
			})
		}
		loop.Schedule(time.Duration(i)*time.Microsecond, w.step)
	}
	return r
}

// finish runs the loop dry and checks that every bio ended exactly once,
// without error, and that the queue is consistent and empty.
func (r *run) finish() {
	t := r.t
	t.Helper()
	r.loop.Run()
	if len(r.ended) != r.subs {
		t.Errorf("%d bios submitted, %d ended", r.subs, len(r.ended))
	}
	for b, n := range r.ended {
		if n != 1 {
			t.Errorf("bio %v %d+%d ended %d times", b.Op, b.Sector, b.Sectors, n)
		}
	}
	if r.errs != 0 {
		t.Errorf("%d bios ended with an error", r.errs)
	}
	if err := r.q.CheckInvariants(); err != nil {
		t.Error(err)
	}
	if !r.q.Idle() {
		t.Errorf("queue not idle at the end: %+v", r.q.Pool())
	}
}

// TestQueueBoundsPasses runs a few thousand random bios through a queue
// with the linus elevator on a seeking device and checks the request
// layer's invariants and the passover bound for every request.
func TestQueueBoundsPasses(t *testing.T) {
	for _, c := range []struct {
		name string
		p    linusParams
		// tune, if set, is written half way through: "attr=value".
		tune string
		// wantExhausted: the budgets are small enough that some requests
		// must run out, so the barrier is exercised.
		wantExhausted bool
	}{
		{"stock2421", linusStock2421(), "", false},
		{"tuned2003", linusTuned2003(), "", true},
		{"tight", linusParams{ReadLatency: 32, WriteLatency: 64, MaxBombSegments: 6, SeekCost: 8}, "", true},
		{"retuned", linusStock2421(), "iosched/read_latency=16", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr := newProbe(c.p)
			sched := "linus-probe-" + c.name
			elevators[sched] = func(Clock) elevator { return pr }
			defer delete(elevators, sched)
			loop := newSimLoop()
			dev := &seekDevice{loop: loop, capacity: 1 << 22}
			r := newRun(t, dev, loop, sched, 24, 4000, 42)
			if c.tune != "" {
				k, v, _ := strings.Cut(c.tune, "=")
				r.hook = func() {
					if err := r.q.SetAttr(k, v); err != nil {
						t.Errorf("SetAttr(%s, %s): %v", k, v, err)
					}
				}
			}
			r.finish()
			for _, v := range pr.violations {
				t.Error(v)
			}
			if len(pr.st) != 0 {
				t.Errorf("%d requests inserted and never dispatched", len(pr.st))
			}
			t.Logf("%d dispatched, %d passes, %d merges (%d refused), %d dispatched exhausted; max passes read %d write %d, max seeky passes read %d write %d",
				pr.dispatched, pr.passes, pr.merges, pr.refused, pr.exhausted, pr.passMax[0], pr.passMax[1], pr.seekyMax[0], pr.seekyMax[1])
			if pr.passes == 0 || pr.merges == 0 {
				t.Errorf("the run exercised nothing: %d passes, %d merges", pr.passes, pr.merges)
			}
			if c.wantExhausted && (pr.exhausted == 0 || pr.refused == 0) {
				t.Errorf("no budget ran out (%d exhausted, %d merges refused): the barrier was not exercised", pr.exhausted, pr.refused)
			}
		})
	}
}

// TestQueueOnNullDevice: the registered "linus" (stock tunables) behind
// the null device at depth 4, through New by name.
func TestQueueOnNullDevice(t *testing.T) {
	loop := newSimLoop()
	dev := newNullDevice(loop, 1<<22, 4)
	r := newRun(t, dev, loop, "linus", 16, 3000, 7)
	if got := r.q.elv.Name(); got != "linus" {
		t.Fatalf("scheduler %q, want linus", got)
	}
	for k, v := range map[string]string{"iosched/read_latency": "2048", "iosched/write_latency": "8192", "iosched/max_bomb_segments": "6", "iosched/seek_cost": "16"} {
		if got, err := r.q.Attr(k); err != nil || got != v {
			t.Errorf("%s = %q, %v; want %q", k, got, err, v)
		}
	}
	if err := r.q.SetAttr("iosched/seek_cost", "0"); err == nil {
		t.Error("seek_cost 0 accepted through the queue")
	}
	r.finish()
}
