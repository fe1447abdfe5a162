package sim

import (
	"math"
	"time"

	"github.com/blkq-dev/blkq"
)

// Loop is a discrete-event loop in virtual time. It implements blkq.Clock:
// Now is the virtual time in ns and AfterFunc schedules a function on the
// loop. Events run one at a time, in order of their time and, at equal
// times, in the order they were scheduled (first scheduled, first run).
// Virtual time jumps from one event to the next and never goes backwards.
//
// A Loop is not safe for concurrent use: create it, schedule the first
// events and call Run on one goroutine; events schedule further events from
// inside the loop. The zero Loop is ready to use, at time 0.
//
// Events are recycled: scheduling allocates nothing once the loop has seen
// its peak number of pending events, except for the stop function that
// AfterFunc must return (Schedule, ScheduleAt and Post return none and so
// allocate nothing).
type Loop struct {
	now     blkq.Time
	seq     uint64   // scheduling order, the tie-break at equal times
	q       []entry  // binary min-heap on (at, seq)
	free    []*event // recycled events
	ran     uint64   // events run so far
	stopped bool
	running bool
}

// An entry is one pending event in the heap. The ordering key is kept in
// the entry itself so comparisons do not follow the pointer.
type entry struct {
	at  blkq.Time
	seq uint64
	ev  *event
}

// An event is the recyclable part of a pending call. gen counts how many
// times it was recycled, so a stop function handed out for an earlier use
// cannot cancel a later one.
type event struct {
	f   func()
	idx int // index in Loop.q; -1 when not pending
	gen uint64
}

// NewLoop returns an empty loop at time 0. It is the same as new(Loop).
func NewLoop() *Loop { return new(Loop) }

// Now returns the current virtual time in ns: the time of the event being
// run, or where Run or RunUntil left off.
func (l *Loop) Now() blkq.Time { return l.now }

// Pending returns the number of events scheduled and not yet run or
// cancelled.
func (l *Loop) Pending() int { return len(l.q) }

// Events returns the number of events run since the loop was created.
func (l *Loop) Events() uint64 { return l.ran }

// AfterFunc schedules f to run on the loop d from now (d < 0 counts as 0)
// and returns a function that cancels it. stop reports whether it cancelled
// the call before it ran; it returns false once f has run or was cancelled.
// stop must be called on the loop's goroutine.
func (l *Loop) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	ev := l.schedule(l.after(d), f)
	gen := ev.gen
	return func() bool { return l.cancel(ev, gen) }
}

// Schedule runs f on the loop d from now (d < 0 counts as 0), like
// AfterFunc without the means to cancel it; it allocates nothing.
func (l *Loop) Schedule(d time.Duration, f func()) { l.schedule(l.after(d), f) }

// ScheduleAt runs f on the loop at virtual time t, or now if t is in the
// past. It allocates nothing.
func (l *Loop) ScheduleAt(t blkq.Time, f func()) { l.schedule(max(t, l.now), f) }

// Post runs f on the loop at the current time, after every event already
// scheduled for this time: AfterFunc(0, f) without the stop function.
func (l *Loop) Post(f func()) { l.schedule(l.now, f) }

// Stop makes Run or RunUntil return once the event being run returns.
// Events still pending stay scheduled; a later Run resumes them.
func (l *Loop) Stop() { l.stopped = true }

// Run runs events in order until none remain or Stop is called.
func (l *Loop) Run() { l.run(math.MaxInt64, false) }

// RunUntil runs every event scheduled at or before t, in order, and then
// advances the clock to t (if it is ahead). If Stop is called first it
// returns at once and the clock stays at the last event run.
func (l *Loop) RunUntil(t blkq.Time) { l.run(t, true) }

func (l *Loop) run(until blkq.Time, advance bool) {
	if l.running {
		panic("sim: Run or RunUntil called from inside an event")
	}
	l.running = true
	l.stopped = false
	defer func() { l.running = false }()
	for !l.stopped && len(l.q) > 0 && l.q[0].at <= until {
		top := l.pop()
		l.now = top.at
		ev := top.ev
		f := ev.f
		ev.f = nil
		ev.gen++
		l.free = append(l.free, ev)
		l.ran++
		f()
	}
	if advance && !l.stopped && until > l.now {
		l.now = until
	}
}

// after converts a delay to an absolute time, treating d < 0 as 0 and
// saturating at the largest Time instead of overflowing.
func (l *Loop) after(d time.Duration) blkq.Time {
	if d <= 0 {
		return l.now
	}
	if blkq.Time(d) > math.MaxInt64-l.now {
		return math.MaxInt64
	}
	return l.now + blkq.Time(d)
}

func (l *Loop) schedule(at blkq.Time, f func()) *event {
	if f == nil {
		panic("sim: nil event function")
	}
	var ev *event
	if n := len(l.free); n > 0 {
		ev = l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
	} else {
		ev = new(event)
	}
	ev.f = f
	l.seq++
	l.q = append(l.q, entry{at: at, seq: l.seq, ev: ev})
	l.up(len(l.q) - 1)
	return ev
}

func (l *Loop) cancel(ev *event, gen uint64) bool {
	if ev.gen != gen || ev.idx < 0 {
		return false
	}
	l.removeAt(ev.idx)
	ev.f = nil
	ev.gen++
	l.free = append(l.free, ev)
	return true
}

// Heap operations. They move entries into a hole instead of swapping and
// keep each event's idx current for cancellation.

func less(a, b *entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (l *Loop) up(i int) {
	q := l.q
	e := q[i]
	for i > 0 {
		p := (i - 1) / 2
		if !less(&e, &q[p]) {
			break
		}
		q[i] = q[p]
		q[i].ev.idx = i
		i = p
	}
	q[i] = e
	e.ev.idx = i
}

func (l *Loop) down(i int) {
	q := l.q
	n := len(q)
	e := q[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && less(&q[r], &q[c]) {
			c = r
		}
		if !less(&q[c], &e) {
			break
		}
		q[i] = q[c]
		q[i].ev.idx = i
		i = c
	}
	q[i] = e
	e.ev.idx = i
}

// pop removes and returns the earliest entry. It sifts the hole at the
// root down to a leaf along the smaller children (one comparison per level)
// and then moves the former last entry up from there, which is usually a
// short way: the last entry of a heap tends to be a late one.
func (l *Loop) pop() entry {
	q := l.q
	top := q[0]
	n := len(q) - 1
	last := q[n]
	q[n] = entry{}
	q = q[:n]
	l.q = q
	top.ev.idx = -1
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && less(&q[r], &q[c]) {
			c = r
		}
		q[i] = q[c]
		q[i].ev.idx = i
		i = c
	}
	q[i] = last
	last.ev.idx = i
	l.up(i)
	return top
}

func (l *Loop) removeAt(i int) {
	ev := l.q[i].ev
	n := len(l.q) - 1
	last := l.q[n]
	l.q[n] = entry{}
	l.q = l.q[:n]
	ev.idx = -1
	if i == n {
		return
	}
	l.q[i] = last
	last.ev.idx = i
	if i > 0 && less(&l.q[i], &l.q[(i-1)/2]) {
		l.up(i)
	} else {
		l.down(i)
	}
}
