package blkq

import (
	"fmt"
	"sort"
	"sync"
)

// An Elevator (I/O scheduler) holds the requests inserted into a queue and
// chooses which one the device serves next. The queue calls it under its
// lock; an elevator never blocks and never reads the wall clock.
//
// Merging is the queue's job (merge.go); the elevator only answers the
// questions that need its sort order (FrontMerge, Former, Latter) and hears
// about merges so it can keep that order (Merged, MergedRequests).
type Elevator interface {
	// Name is the scheduler's name as /sys/block/*/queue/scheduler shows it.
	Name() string
	// Insert adds a request at time now; atHead puts it before everything
	// else (flushes, requeues).
	Insert(rq *Request, atHead bool, now Time)
	// Dispatch removes and returns the request to issue next, or nil.
	Dispatch(now Time) *Request
	// Len is the number of requests held.
	Len() int
	// FrontMerge returns a held request of op that starts at sector (so a
	// bio ending there can merge at its front), or nil.
	FrontMerge(sector uint64, op Op) *Request
	// Former and Latter return rq's neighbours in sector order (same op),
	// or nil: the candidates for a request+request merge.
	Former(rq *Request) *Request
	Latter(rq *Request) *Request
	// AllowMerge lets the elevator veto merging b into rq.
	AllowMerge(rq *Request, b *Bio) bool
	// Merged tells the elevator a bio merged into rq (front: rq.Sector
	// moved down).
	Merged(rq *Request, front bool)
	// MergedRequests tells the elevator next was merged into rq and must
	// be forgotten.
	MergedRequests(rq, next *Request)
	// Drain removes and returns every held request, for a scheduler switch.
	Drain() []*Request
	// Attrs lists the tunables' names (the files in queue/iosched/).
	Attrs() []string
	// Attr reads a tunable, SetAttr writes one; values are text as in sysfs.
	Attr(name string) (string, error)
	SetAttr(name, value string) error
}

// ElevatorFactory makes an elevator for a queue with clock clk.
type ElevatorFactory func(clk Clock) Elevator

var (
	elevatorsMu sync.Mutex
	elevators   = map[string]ElevatorFactory{"none": newNone}
)

// RegisterElevator makes a scheduler available by name. Scheduler packages
// (blkq/iosched/...) register themselves in init; import them for effect.
func RegisterElevator(name string, f ElevatorFactory) {
	elevatorsMu.Lock()
	defer elevatorsMu.Unlock()
	elevators[name] = f
}

// Elevators lists the registered schedulers' names, sorted.
func Elevators() []string {
	elevatorsMu.Lock()
	defer elevatorsMu.Unlock()
	var names []string
	for n := range elevators {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newElevator(name string, clk Clock) (Elevator, error) {
	elevatorsMu.Lock()
	f, ok := elevators[name]
	elevatorsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("blkq: unknown scheduler %q (have %v)", name, Elevators())
	}
	return f(clk), nil
}

// ErrNoAttr is returned for a tunable an elevator or queue does not have.
var ErrNoAttr = fmt.Errorf("no such attribute")

// RequestList is a doubly linked list of requests through ElvPrev/ElvNext,
// for elevators. A request is on at most one RequestList at a time.
type RequestList struct {
	head, tail *Request
	n          int
}

// PushBack appends rq.
func (l *RequestList) PushBack(rq *Request) {
	rq.ElvPrev, rq.ElvNext = l.tail, nil
	if l.tail != nil {
		l.tail.ElvNext = rq
	} else {
		l.head = rq
	}
	l.tail = rq
	l.n++
}

// PushFront prepends rq.
func (l *RequestList) PushFront(rq *Request) {
	rq.ElvPrev, rq.ElvNext = nil, l.head
	if l.head != nil {
		l.head.ElvPrev = rq
	} else {
		l.tail = rq
	}
	l.head = rq
	l.n++
}

// Remove unlinks rq, which must be on l.
func (l *RequestList) Remove(rq *Request) {
	if rq.ElvPrev != nil {
		rq.ElvPrev.ElvNext = rq.ElvNext
	} else {
		l.head = rq.ElvNext
	}
	if rq.ElvNext != nil {
		rq.ElvNext.ElvPrev = rq.ElvPrev
	} else {
		l.tail = rq.ElvPrev
	}
	rq.ElvPrev, rq.ElvNext = nil, nil
	l.n--
}

// Front returns the first request or nil.
func (l *RequestList) Front() *Request { return l.head }

// Back returns the last request or nil.
func (l *RequestList) Back() *Request { return l.tail }

// InsertAfter puts rq just after mark, which must be on l.
func (l *RequestList) InsertAfter(rq, mark *Request) {
	rq.ElvPrev, rq.ElvNext = mark, mark.ElvNext
	if mark.ElvNext != nil {
		mark.ElvNext.ElvPrev = rq
	} else {
		l.tail = rq
	}
	mark.ElvNext = rq
	l.n++
}

// Len returns the number of requests on l.
func (l *RequestList) Len() int { return l.n }

// none is the FIFO elevator: requests are served in insertion order.
// Merging still happens in the queue (one-hit cache and back-merge hash);
// there is no sorted tree, so no front merge and no request+request merge.
type none struct{ fifo RequestList }

func newNone(Clock) Elevator { return &none{} }

func (e *none) Name() string { return "none" }
func (e *none) Insert(rq *Request, atHead bool, _ Time) {
	if atHead {
		e.fifo.PushFront(rq)
	} else {
		e.fifo.PushBack(rq)
	}
}
func (e *none) Dispatch(Time) *Request {
	rq := e.fifo.Front()
	if rq != nil {
		e.fifo.Remove(rq)
	}
	return rq
}
func (e *none) Len() int                        { return e.fifo.Len() }
func (e *none) FrontMerge(uint64, Op) *Request  { return nil }
func (e *none) Former(*Request) *Request        { return nil }
func (e *none) Latter(*Request) *Request        { return nil }
func (e *none) AllowMerge(*Request, *Bio) bool  { return true }
func (e *none) Merged(*Request, bool)           {}
func (e *none) MergedRequests(_, next *Request) { e.fifo.Remove(next) }
func (e *none) Attrs() []string                 { return nil }
func (e *none) Attr(string) (string, error)     { return "", ErrNoAttr }
func (e *none) SetAttr(string, string) error    { return ErrNoAttr }
func (e *none) Drain() []*Request {
	var out []*Request
	for rq := e.fifo.Front(); rq != nil; rq = e.fifo.Front() {
		e.fifo.Remove(rq)
		out = append(out, rq)
	}
	return out
}

// InsertBefore puts rq just before mark, which must be on l.
func (l *RequestList) InsertBefore(rq, mark *Request) {
	rq.ElvNext, rq.ElvPrev = mark, mark.ElvPrev
	if mark.ElvPrev != nil {
		mark.ElvPrev.ElvNext = rq
	} else {
		l.head = rq
	}
	mark.ElvPrev = rq
	l.n++
}
