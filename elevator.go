package blkq

import (
	"fmt"
	"sort"
)

// Elevators (I/O schedulers) are the queue's own: none, mq-deadline and
// the 2.4 linus elevator live in this package (sched_*.go) so that
// Config{Scheduler: "mq-deadline"} and the default work without a blank
// import, and so that their per-request state stays unexported. An
// elevator implements the four methods every scheduler needs; the hooks
// only some need (front-merge lookup, request+request merge candidates, a
// merge veto, merge notifications, a drain order, tunables) are small
// optional interfaces the queue looks up once when it installs the
// elevator, so a scheduler without sorted state (none) implements nothing
// it does not use.

// An elevator holds the requests inserted into a queue and chooses which
// one the device serves next. The queue calls it under its lock; an
// elevator never blocks and never reads the wall clock. Merging is the
// queue's job (merge.go); the elevator answers only what needs its order.
type elevator interface {
	// Name is the scheduler's name as /sys/block/*/queue/scheduler shows it.
	Name() string
	// Insert adds a request at time now; atHead puts it before everything
	// else (flushes, requeues).
	Insert(rq *Request, atHead bool, now Time)
	// Dispatch removes and returns the request to issue next, or nil.
	Dispatch(now Time) *Request
	// Len is the number of requests held.
	Len() int
}

// frontMerger finds a held request of op that starts at sector (so a bio
// ending there can merge at its front), or nil. Without it there are no
// front merges through the elevator.
type frontMerger interface {
	FrontMerge(sector uint64, op Op) *Request
}

// prioFrontMerger is a frontMerger that keeps requests by I/O priority
// (mq-deadline): it looks only at the level of the bio's priority. The
// queue prefers it to FrontMerge.
type prioFrontMerger interface {
	FrontMergePrio(sector uint64, op Op, prio uint16) *Request
}

// finisher hears that a request it held was freed: completed, or merged
// into another (Linux's finish_request).
type finisher interface {
	Finished(rq *Request)
}

// requestMerger gives rq's neighbours in sector order (same op), the
// candidates for a request+request merge, and forgets next once the
// queue merged it into rq. Without it requests are never joined.
type requestMerger interface {
	Former(rq *Request) *Request
	Latter(rq *Request) *Request
	MergedRequests(rq, next *Request)
}

// mergeAllower may veto merging b into rq.
type mergeAllower interface {
	AllowMerge(rq *Request, b *Bio) bool
}

// mergeNotifier hears that a bio merged into rq (front: rq.Sector moved
// down), to keep its order.
type mergeNotifier interface {
	Merged(rq *Request, front bool)
}

// insertMerger is an elevator that merges each request it is given into
// a request it holds when the two are adjacent (merge.go's insertMerge).
type insertMerger interface {
	mergesOnInsert()
}

// legacyMerger is an elevator whose bios merge by Linux 2.4's rules
// (merge.go).
type legacyMerger interface {
	legacyMerges()
}

// drainer gives up every held request in its own order, for a scheduler
// switch; without it the queue drains by calling Dispatch until nil.
type drainer interface {
	Drain() []*Request
}

// tunables are an elevator's files in queue/iosched/: names, and text
// values read and written as in sysfs.
type tunables interface {
	Attrs() []string
	Attr(name string) (string, error)
	SetAttr(name, value string) error
}

// elvHooks are the optional interfaces of the installed elevator, looked
// up once; a nil field means the elevator has no such hook.
type elvHooks struct {
	front  frontMerger
	pfront prioFrontMerger
	finish finisher
	reqs   requestMerger
	allow  mergeAllower
	merged mergeNotifier
	tun    tunables
	// insertMerges: the elevator merges a request it is given into one
	// it holds (insertMerger).
	insertMerges bool
	// legacyMerges: the elevator merges bios by the 2.4 rules
	// (legacyMerger).
	legacyMerges bool
}

func hooksOf(e elevator) elvHooks {
	var h elvHooks
	h.front, _ = e.(frontMerger)
	h.pfront, _ = e.(prioFrontMerger)
	h.finish, _ = e.(finisher)
	h.reqs, _ = e.(requestMerger)
	h.allow, _ = e.(mergeAllower)
	h.merged, _ = e.(mergeNotifier)
	h.tun, _ = e.(tunables)
	_, h.insertMerges = e.(insertMerger)
	_, h.legacyMerges = e.(legacyMerger)
	return h
}

// drain empties e, in its drain order if it has one.
func drainElevator(e elevator, now Time) []*Request {
	if d, ok := e.(drainer); ok {
		return d.Drain()
	}
	var out []*Request
	for rq := e.Dispatch(now); rq != nil; rq = e.Dispatch(now) {
		out = append(out, rq)
	}
	return out
}

// elevators are the schedulers by name. Tests add probes to it.
var elevators = map[string]func(Clock) elevator{
	"none":             func(Clock) elevator { return &none{} },
	"mq-deadline":      func(Clock) elevator { return newMQDeadline() },
	deadlineNoprioName: func(Clock) elevator { return newDeadline(deadlineNoprioName) },
	linusName:          func(Clock) elevator { return newLinus(linusStock2421()) },
}

// deadlineNoprioName is the name of blkq's mq-deadline before Linux 6.x's
// priority levels (sched_deadline_noprio.go), which the experiments use.
const deadlineNoprioName = "mq-deadline-noprio"

// defaultScheduler is the scheduler of a queue whose Config names none:
// mq-deadline, as Linux's elevator_get_default picks it for a device with
// a single hardware queue (block/elevator.c, 5.0 and later), which every
// blkq device is. The CLI's default is the same.
const defaultScheduler = "mq-deadline"

// elevatorNames lists the schedulers' names, sorted: the values
// Config.Scheduler and the scheduler tunable accept.
func elevatorNames() []string {
	var names []string
	for n := range elevators {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newElevator(name string, clk Clock) (elevator, error) {
	f, ok := elevators[name]
	if !ok {
		return nil, fmt.Errorf("blkq: unknown scheduler %q (have %v)", name, elevatorNames())
	}
	return f(clk), nil
}
