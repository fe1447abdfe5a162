// Package simtest has the helpers the simulated devices' tests share: a
// recorder of completions with their virtual times, and request builders.
// It is imported only by tests, as net/http/httptest is.
package simtest

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// A Completion is one request a device completed: when, and with what error.
type Completion struct {
	Rq  *blkq.Request
	At  blkq.Time // virtual time of the completion, ns
	Err error
}

// Record attaches a recorder to d and returns the completions it sees, in
// order, timed by l.
func Record(l *sim.Loop, d blkq.Device) *[]Completion {
	var got []Completion
	d.Attach(func(rq *blkq.Request, err error) {
		got = append(got, Completion{rq, l.Now(), err})
	})
	return &got
}

// Read returns a read request of n sectors at sector.
func Read(sector uint64, n uint32) *blkq.Request {
	return &blkq.Request{Op: blkq.OpRead, Sector: sector, Sectors: n}
}

// ClosedLoop keeps d's depth of requests in flight, as a queue would:
// issue is called depth times at first and again from each completion
// until n requests have completed; it returns the completion times. Any
// request error panics (the workloads that use it issue valid requests).
func ClosedLoop(l *sim.Loop, d blkq.Device, n int, issue func()) []blkq.Time {
	var times []blkq.Time
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			panic(err)
		}
		times = append(times, l.Now())
		if len(times) < n {
			issue()
		}
	})
	for range d.Depth() {
		issue()
	}
	l.Run()
	return times
}
